import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

// Relative asset paths: the same build is served by copydesk-server at `/`
// and bundled into the desktop app.
export default defineConfig({
  base: './',
  plugins: [preact()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1200 },
});

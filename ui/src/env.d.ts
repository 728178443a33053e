// Vite's module kinds (CSS imports) for the type checker.
/// <reference types="vite/client" />

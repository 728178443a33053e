// Starts the UI: finds its service (the desktop app's, or the page's own
// origin with a signed-in key), learns who is working, and shows the desk.

import { render } from 'preact';
import { App } from './app';
import './style.css';

render(<App />, document.getElementById('app')!);

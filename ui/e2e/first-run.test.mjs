// A newcomer's first run without a display: `bash scripts/run.sh` starts the
// service on a fresh data directory and prints a one-time link; the link,
// opened in a real browser, lands on the desk signed in as the admin it made.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, repo, server, shot } from './support.mjs';

/** A loopback port nothing listens on now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

let run;
let dir;
let browser;
let printed = '';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'copydesk-first-run-'));
  const port = await freePort();
  run = spawn('bash', ['scripts/run.sh'], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DISPLAY: '',
      WAYLAND_DISPLAY: '',
      USER: 'newcomer',
      COPYDESK_PREBUILT: '1',
      COPYDESK_SERVER: server,
      COPYDESK_DATA: dir,
      COPYDESK_LISTEN: `127.0.0.1:${port}`,
    },
  });
  let log = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`run.sh did not start the server: ${printed}${log}`)), 30000);
    run.stdout.on('data', (chunk) => {
      printed += chunk.toString();
    });
    run.stderr.on('data', (chunk) => {
      log += chunk.toString();
      if (log.includes('listening on http://')) {
        clearTimeout(timer);
        resolve();
      }
    });
    run.on('exit', (code) => reject(new Error(`run.sh exited (${code}): ${printed}${log}`)));
  });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  run?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the first run without a display', () => {
  it('prints a one-time link that signs the admin in, in a browser', async () => {
    const link = /(http:\/\/127\.0\.0\.1:\d+\/#\/sign-in\/[A-Za-z0-9_-]{43})/.exec(printed)?.[1];
    assert.ok(link, `run.sh printed a sign-in link: ${printed}`);
    assert.doesNotMatch(printed, /paste the whole JSON/, 'no key to paste');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
    await page.goto(link);
    await page.getByRole('heading', { name: 'Content' }).waitFor();
    // An empty desk says what to do first; a browser on the newsroom's own
    // server is not told to connect to one.
    const first = page.getByRole('region', { name: 'First steps' });
    await first.getByRole('heading', { name: 'No stories yet' }).waitFor();
    assert.doesNotMatch(await first.innerText(), /connect to your newsroom/);
    await shot(page, 'first-run-empty-desk');
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    assert.equal(await page.locator('dl.facts dd').first().innerText(), 'newcomer');
    await shot(page, 'first-run-signed-in');
    await context.close();
  });
});

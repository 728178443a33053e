// The real desktop app under Xvfb, driven through tauri-driver and
// WebKitWebDriver: it starts on its own replica, shows the content list from
// its embedded service, saves a draft, and its local service refuses a
// request without the launch's token or from a foreign origin.

import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { remote } from 'webdriverio';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const app = process.env.COPYDESK_APP ?? join(repo, 'target', 'debug', 'copydesk');
const server = process.env.COPYDESK_SERVER ?? join(repo, 'target', 'debug', 'copydesk-server');
const driver = process.env.TAURI_DRIVER ?? join(repo, 'target', 'tools', 'bin', 'tauri-driver');
const artifacts = join(here, 'artifacts');
mkdirSync(artifacts, { recursive: true });

const children = [];
let data;
let browser;

function start(command, args, env) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.on('data', (d) => process.env.COPYDESK_DEBUG && process.stderr.write(d));
  children.push(child);
  return child;
}

async function listening(port) {
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((resolve) => {
      const r = request({ host: '127.0.0.1', port, path: '/status', method: 'GET' }, () => resolve(true));
      r.on('error', () => resolve(false));
      r.end();
    });
    if (up) return;
    await sleep(100);
  }
  throw new Error(`nothing listens on ${port}`);
}

/** A raw request, so a test can send any Host and Origin. */
function raw(base, path, headers) {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const r = request({ host: hostname, port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body: body ? JSON.parse(body) : undefined }));
    });
    r.on('error', reject);
    r.end();
  });
}

async function shot(name) {
  // Let the window paint what the test just waited for.
  await sleep(400);
  await browser.saveScreenshot(join(artifacts, `${name}.png`));
}

before(async () => {
  data = mkdtempSync(join(tmpdir(), 'copydesk-desktop-'));
  // A replica with stories already in it, written by the same service headless.
  const seeding = start(server, ['serve', '--listen', '127.0.0.1:0', '--data', data]);
  const base = await new Promise((resolve, reject) => {
    let seen = '';
    const read = (d) => {
      seen += d;
      const found = /listening on (http:\/\/[0-9.:]+)/.exec(seen);
      if (found) resolve(found[1]);
    };
    seeding.stdout.on('data', read);
    seeding.stderr.on('data', read);
    seeding.on('exit', () => reject(new Error(seen)));
  });
  const key = JSON.parse(execFileSync(server, ['key', 'create', '--data', data, '--name', 'seed', '--role', 'admin', '--json'], { encoding: 'utf8' }));
  const keyFile = join(data, 'seed-key.json');
  writeFileSync(keyFile, JSON.stringify(key), { mode: 0o600 });
  const token = execFileSync(server, ['token', '--key-file', keyFile], { encoding: 'utf8' }).trim();
  for (const title of ['Flood defences hold', 'Council budget passes', 'Storm warning lifted']) {
    const made = await fetch(`${base}/v3/content`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title, type: 'article', content: `<p>${title}.</p>` }),
    });
    assert.equal(made.status, 200);
  }
  seeding.kill('SIGTERM');
  await new Promise((resolve) => seeding.on('exit', resolve));

  const display = process.env.DISPLAY ?? ':99';
  if (!process.env.DISPLAY) {
    start('Xvfb', [display, '-screen', '0', '1280x800x24', '-nolisten', 'tcp']);
    await sleep(500);
  }
  start(driver, ['--port', '4444'], { DISPLAY: display, COPYDESK_DATA: data });
  await listening(4444);
  browser = await remote({
    hostname: '127.0.0.1',
    port: 4444,
    logLevel: 'warn',
    // Classic WebDriver only: WebKitWebDriver speaks no WebDriver BiDi.
    capabilities: { browserName: 'wry', 'tauri:options': { application: app }, 'wdio:enforceWebDriverClassic': true },
  });
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  for (const child of children.reverse()) child.kill('SIGTERM');
  if (data) rmSync(data, { recursive: true, force: true });
});

it('starts on its replica and shows the content list from its embedded service', async () => {
  const heading = await browser.$('h1=Content');
  await heading.waitForDisplayed({ timeout: 20000 });
  const list = await browser.$('table.list');
  await browser.waitUntil(async () => (await list.getText()).includes('Storm warning lifted'), { timeout: 10000 });
  const text = await list.getText();
  for (const title of ['Flood defences hold', 'Council budget passes', 'Storm warning lifted']) assert.match(text, new RegExp(title));
  await shot('desktop-content-list');
});

it('saves a draft in the real window', async () => {
  await (await browser.$('input[name="title"]')).setValue('Written on the laptop');
  await (await browser.$('button=Create')).click();
  const body = await browser.$('[aria-label="Body"]');
  await body.waitForDisplayed({ timeout: 10000 });
  await body.click();
  // Element Send Keys: WebKitWebDriver's key actions can drop a repeated letter.
  await body.addValue('Filed from the desktop app');
  const state = await browser.$('.draft-state');
  await browser.waitUntil(async () => /Draft saved at/.test(await state.getText()), { timeout: 15000 });
  await shot('desktop-editor');
  const { base, token } = await browser.execute(() => window.__TAURI__.core.invoke('connection'));
  const uuid = (await browser.getUrl()).split('/').pop();
  const item = await raw(base, `/v3/content/${uuid}`, { Authorization: `Bearer ${token}` });
  assert.equal(item.status, 200);
  // Autosave may have caught the typing half way: the next one has it all.
  let last;
  await browser.waitUntil(
    async () => {
      last = await raw(base, `/v3/draft?content=${encodeURIComponent(item.body.srn)}`, { Authorization: `Bearer ${token}` });
      return /Filed from the desktop app</.test(last.body?.[0]?.content ?? '');
    },
    { timeout: 15000, timeoutMsg: 'the whole text never reached a draft' },
  );
  assert.equal(JSON.parse(last.body[0].content_raw).blocks[0].text, 'Filed from the desktop app');
});

it('refuses requests without the token, or from another origin or host', async () => {
  const { base, token } = await browser.execute(() => window.__TAURI__.core.invoke('connection'));
  assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
  const bare = await raw(base, '/v3/content', {});
  assert.equal(bare.status, 403);
  assert.equal(bare.body.code, 'token_missing');
  const foreign = await raw(base, '/v3/content', { Authorization: `Bearer ${token}`, Origin: 'https://evil.example' });
  assert.equal(foreign.status, 403);
  assert.equal(foreign.body.code, 'foreign_origin');
  const rebound = await raw(base, '/v3/content', { Authorization: `Bearer ${token}`, Host: `evil.example:${new URL(base).port}` });
  assert.equal(rebound.status, 403);
  assert.equal(rebound.body.code, 'foreign_origin');
  const own = await raw(base, '/v3/content', { Authorization: `Bearer ${token}` });
  assert.equal(own.status, 200);
  // The other screens, for the record.
  for (const screen of ['sync', 'settings', 'containers', 'print']) {
    await browser.execute((s) => (location.hash = `#/${s}`), screen);
    await sleep(700);
    await shot(`desktop-${screen}`);
  }
});

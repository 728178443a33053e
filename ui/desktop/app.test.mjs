// The real desktop app under Xvfb, driven through tauri-driver and
// WebKitWebDriver: it starts on its own replica, shows the content list from
// its embedded service, saves a draft, and its local service refuses a
// request without the launch's token or from a foreign origin; the editor
// shows its counts and the story's lead photo.

import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fillReplica, openApp, repoPath, startDriver, stopAll } from './driver.mjs';

const app = process.env.COPYDESK_APP ?? repoPath('target', 'debug', 'copydesk');
const server = process.env.COPYDESK_SERVER ?? repoPath('target', 'debug', 'copydesk-server');
const driver = process.env.TAURI_DRIVER ?? repoPath('target', 'tools', 'bin', 'tauri-driver');
const artifacts = repoPath('ui', 'desktop', 'artifacts');
mkdirSync(artifacts, { recursive: true });
const SEEDED = ['Flood defences hold', 'Council budget passes', 'Storm warning lifted'];
/** A small real PNG (16 by 12, a colour gradient), as base64. */
const PHOTO =
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAMCAIAAADkharWAAABVklEQVR42hXRIREFIRhFYSIgCIBEbgAEEf4ICAKsRG4ABBFOBAQBkEgCIIiwEd6+67+ZO3OUUmiFVVyKoBBFVNyKR1EVKJpiKJbiKF6FUgZtsIbLEAxiiIbb8BiqAUMzDMMyHMNrPuDQDuu4HMEhjui4HY+jOnA0x3Asx3G87gMe7bGeyxM84ome2/N4qgdP8wzP8hzP6z8gaMEKlxAEEaJwC49QBYQmDGEJR3jlAwmdsIkrERKSiIk78SRqgkRLjMRKnMSbPpDRGZu5MiEjmZi5M0+mZsi0zMiszMm8+QMFXbCFqxAKUoiFu/AUaoFCK4zCKpzCWz4AGixcEP6fiXDDA5X/GgxYcOD9wqiO7tjO1Qkd6cTO3Xk6tUOndUZndU7n7R+Y6ImdXJMwkUmc3JNnUidM2mRM1uRM3vmBjd7YzbUJG9nEzb15NnXDpm3GZm3O5t38AK0CJJAfjLb6AAAAAElFTkSuQmCC';

let data;
let browser;

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
  await fillReplica(server, data, SEEDED);
  // With GPU compositing, which the app leaves off by default: drawing in
  // software, WebKitWebDriver's screenshots hang (stop.test.mjs runs the
  // app as it starts by default).
  await startDriver(driver, 4444, data, { COPYDESK_GPU_COMPOSITING: '1' });
  browser = await openApp(4444, app);
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  stopAll();
  if (data) rmSync(data, { recursive: true, force: true });
});

it('starts on its replica and shows the content list from its embedded service', async () => {
  const heading = await browser.$('h1=Content');
  await heading.waitForDisplayed({ timeout: 20000 });
  const list = await browser.$('table.list');
  await browser.waitUntil(async () => (await list.getText()).includes('Storm warning lifted'), { timeout: 10000 });
  const text = await list.getText();
  for (const title of SEEDED) assert.match(text, new RegExp(title));
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

it('shows the editor with its counts and a lead photo', async () => {
  const { base, token } = await browser.execute(() => window.__TAURI__.core.invoke('connection'));
  const uuid = (await browser.getUrl()).split('/').pop();
  const call = async (method, path, body) => {
    // From inside the window, as the app itself calls its service (its Origin, its token).
    const answer = await browser.execute(
      async (b, t, m, p, json) => {
        const r = await fetch(`${b}${p}`, { method: m, headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/json' }, body: json });
        return { status: r.status, body: await r.json() };
      },
      base,
      token,
      method,
      path,
      body ? JSON.stringify(body) : undefined,
    );
    assert.ok(answer.status < 300, `${method} ${path}: ${JSON.stringify(answer)}`);
    return Array.isArray(answer.body) ? answer.body[0] : answer.body;
  };
  const media = await call('POST', '/v3/content', {
    title: 'Flood barrier at dawn',
    type: 'media',
    attachment: { name: 'barrier.png', file: PHOTO },
  });
  await call('PUT', `/v3/content/${uuid}`, { dominantAttachment: media.uuid });
  await browser.refresh();
  const counts = await browser.$('#body-count');
  await counts.waitForDisplayed({ timeout: 15000 });
  assert.match(await counts.getText(), /Body: 5 words/);
  const photo = await browser.$('img[alt="Flood barrier at dawn"]');
  await photo.waitForDisplayed({ timeout: 15000 });
  await browser.waitUntil(async () => browser.execute((img) => img.complete && img.naturalWidth > 0, photo), {
    timeout: 10000,
    timeoutMsg: 'the lead photo never loaded',
  });
  await photo.scrollIntoView({ block: 'center' });
  await shot('desktop-editor-counts-lead-photo');
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

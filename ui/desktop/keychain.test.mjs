// The desktop app on a desktop login (a D-Bus session with a Secret Service
// keychain): the central server's key set in Settings goes to the keychain and
// nowhere on disk, sync starts with it, a relaunch finds it there again, and a
// second launch leaves the first window alone.

import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer } from '../e2e/support.mjs';
import { openApp, repoPath, startDriver, startKeychain, stopAll, until } from './driver.mjs';

const app = process.env.COPYDESK_APP ?? repoPath('target', 'debug', 'copydesk');
const driver = process.env.TAURI_DRIVER ?? repoPath('target', 'tools', 'bin', 'tauri-driver');
const PORT = 4446;
const artifacts = repoPath('ui', 'desktop', 'artifacts');

let scratch;
let data;
let login;
let central;
let desk;
let browser;

/** Calls the app's own service with its launch token. */
async function local(path) {
  const { base, token } = await browser.execute(() => window.__TAURI__.core.invoke('connection'));
  const response = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(response.status, 200, `${path}: ${response.status}`);
  return response.json();
}

/** Every file under `dir`, recursively. */
function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Sync runs every few seconds: wait for what it brings. */
const poll = (check, message) => until(check, message, 30000, 250);

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'copydesk-login-'));
  data = mkdtempSync(join(tmpdir(), 'copydesk-desktop-'));
  login = await startKeychain(scratch);
  // With GPU compositing, for the screenshot (see app.test.mjs).
  login = await startDriver(driver, PORT, data, { ...login, COPYDESK_GPU_COMPOSITING: '1' });
  central = await startServer();
  desk = central.key('Desk', ['admin']);
  browser = await openApp(PORT, app);
  await (await browser.$('h1=Content')).waitForDisplayed({ timeout: 20000 });
});

after(async () => {
  await browser?.deleteSession().catch(() => {});
  stopAll();
  central?.stop();
  for (const dir of [data, scratch]) if (dir) rmSync(dir, { recursive: true, force: true });
});

it('on an empty replica that syncs with nothing, says what to do first', async () => {
  const first = await browser.$('section[aria-label="First steps"]');
  await first.waitForDisplayed({ timeout: 10000 });
  await browser.waitUntil(async () => /connect to your newsroom’s server in Settings/.test(await first.getText()), {
    timeout: 10000,
    timeoutMsg: 'the empty desk points to Settings',
  });
  assert.match(await first.getText(), /No stories yet/);
  await sleep(400);
  await browser.saveScreenshot(join(artifacts, 'desktop-first-steps.png'));
});

it('keeps the central key in the system keychain, not on disk, and syncs with it', async () => {
  const laptop = central.key('Laptop', ['admin']);
  await browser.execute(() => (location.hash = '#/settings'));
  await (await browser.$('input[name="address"]')).setValue(central.base);
  await (await browser.$('textarea')).setValue(JSON.stringify(laptop));
  await (await browser.$('button=Save')).click();
  const saved = await browser.$('p[role="status"]');
  await saved.waitForDisplayed({ timeout: 10000 });
  assert.match(await saved.getText(), /Saved in the system keychain\. Sync starts now/);
  await browser.$(`p=Syncs with: ${central.base}`).waitForDisplayed({ timeout: 5000 });
  assert.equal(await (await browser.$('textarea')).getValue(), '', 'the key stays on screen after saving');
  await sleep(400);
  await browser.saveScreenshot(join(artifacts, 'desktop-settings-remote.png'));

  // In the keychain, under the server's address...
  const kept = execFileSync('secret-tool', ['lookup', 'service', 'copydesk', 'username', central.base], {
    env: { ...process.env, ...login },
    encoding: 'utf8',
  });
  assert.equal(JSON.parse(kept).private_key, laptop.private_key);
  // ...and in no file of the replica.
  for (const file of filesUnder(data)) {
    assert.ok(!readFileSync(file).includes(laptop.private_key), `${file} holds the private key`);
  }

  // Sync runs: the central server's story arrives, one written here goes up.
  const there = await central.call(desk, 'POST', '/v3/content', { title: 'Written at the desk', type: 'article' });
  await poll(async () => (await local('/v3/content?per_page=50')).items.some((c) => c.uuid === there.uuid), 'the central story never arrived');
  await (await browser.$('a=Content')).click();
  await (await browser.$('input[name="title"]')).setValue('Written on the train');
  await (await browser.$('button=Create')).click();
  await (await browser.$('[aria-label="Body"]')).waitForDisplayed({ timeout: 10000 });
  await poll(
    async () => (await central.call(desk, 'GET', '/v3/content?per_page=50')).items.some((c) => c.title === 'Written on the train'),
    'the story written in the app never reached the central server',
  );

  // The app listens to the central server's change stream: the sync screen says it is live.
  await poll(async () => (await local('/v3/sync/status')).live === true, 'the change stream never opened');
  await browser.execute(() => (location.hash = '#/sync'));
  await browser.$('dd*=Live: the newsroom server').waitForDisplayed({ timeout: 10000 });
  await browser.$('a*=Online · live').waitForDisplayed({ timeout: 10000 });
});

it('finds the key in the keychain again after a relaunch', async () => {
  await browser.deleteSession();
  browser = await openApp(PORT, app);
  await (await browser.$('h1=Content')).waitForDisplayed({ timeout: 20000 });
  const later = await central.call(desk, 'POST', '/v3/content', { title: 'Filed after the relaunch', type: 'article' });
  await poll(async () => (await local('/v3/content?per_page=50')).items.some((c) => c.uuid === later.uuid), 'no sync after the relaunch');
  const status = await local('/v3/sync/status');
  assert.equal(status.remote, central.base);
});

it('lets one instance run: a second launch hands over and leaves', async () => {
  const second = spawn(app, [], { env: { ...process.env, ...login }, stdio: 'ignore' });
  const code = await Promise.race([new Promise((resolve) => second.on('exit', resolve)), sleep(15000).then(() => 'still running')]);
  if (code === 'still running') second.kill('SIGKILL');
  assert.equal(code, 0);
  // The first window still answers.
  assert.ok(Array.isArray((await local('/v3/content?per_page=1')).items));
});

// Signing in a person can do, in a real browser against a real
// copydesk-server: a password set on the command line, a one-time link, a
// refusal in words, and a revoked key sent back to sign in. The key pair a
// sign-in answers is kept as a non-extractable key, so a reload (and a new
// tab) stays signed in. Signing out revokes that key on the server, so a
// copy of it is refused afterwards; a browser that cannot reach the server
// still signs out, and says so.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { launch, server, shot, startServer, tokenFor } from './support.mjs';

let srv;
let browser;

before(async () => {
  srv = await startServer();
  srv.key('Pat Reporter', ['journalist']);
  execFileSync(server, ['user', 'password', 'Pat Reporter', '--data', srv.dir], { input: 'tide tables 42\n' });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  srv?.stop();
});

async function freshPage() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
  return { context, page };
}

/**
 * Signs in with the password in a fresh page; resolves with the page and a
 * copy of the key pair the service answered (what someone who copied the
 * browser's key would hold).
 */
async function signInWithPassword() {
  const { context, page } = await freshPage();
  await page.goto(`${srv.base}/`);
  await page.getByLabel('Name', { exact: true }).fill('Pat Reporter');
  await page.getByLabel('Password', { exact: true }).fill('tide tables 42');
  const answered = page.waitForResponse((r) => r.url().endsWith('/v3/sign-in') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const copy = await (await answered).json();
  await page.getByRole('heading', { name: 'Content' }).waitFor();
  return { context, page, copy };
}

/** What the service answers `GET /v3/me` signed with `key`: status and code. */
async function meWith(key) {
  const response = await fetch(`${srv.base}/v3/me`, { headers: { Authorization: `Bearer ${await tokenFor(key)}` } });
  return { status: response.status, code: response.ok ? undefined : (await response.json()).code };
}

/** Whoever the desk says is signed in (Settings). */
async function signedInAs(page) {
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('heading', { name: 'Settings' }).waitFor();
  return page.locator('dl.facts dd').first().innerText();
}

describe('signing in', () => {
  it('with a name and password, and stays signed in across a reload and a new tab', async () => {
    const { context, page } = await freshPage();
    await page.goto(`${srv.base}/`);
    await page.getByRole('heading', { name: 'Sign in to Copydesk' }).waitFor();
    await shot(page, 'sign-in');
    await page.getByLabel('Name', { exact: true }).fill('Pat Reporter');
    await page.getByLabel('Password', { exact: true }).fill('tide tables 42');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Content' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Content' }).waitFor();
    assert.equal(await signedInAs(page), 'Pat Reporter');
    const tab = await context.newPage();
    await tab.goto(`${srv.base}/`);
    await tab.getByRole('heading', { name: 'Content' }).waitFor();
    await context.close();
  });

  it('refuses a wrong password in words', async () => {
    const { context, page } = await freshPage();
    await page.goto(`${srv.base}/#/sign-in`);
    await page.getByLabel('Name', { exact: true }).fill('Pat Reporter');
    await page.getByLabel('Password', { exact: true }).fill('tide tables 43');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.equal(await alert.innerText(), 'That name and password do not match.');
    await shot(page, 'sign-in-refused');
    assert.equal(await page.getByRole('heading', { name: 'Content' }).count(), 0);
    await context.close();
  });

  it('with a one-time link, and stays signed in across a reload; the link works once', async () => {
    const link = execFileSync(server, ['user', 'link', 'Pat Reporter', '--data', srv.dir, '--base', srv.base], {
      encoding: 'utf8',
    }).trim();
    assert.match(link, /\/#\/sign-in\/[A-Za-z0-9_-]{43}$/);
    const { context, page } = await freshPage();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Content' }).waitFor();
    assert.ok(!page.url().includes('sign-in'), `the spent link left the address: ${page.url()}`);
    await page.reload();
    await page.getByRole('heading', { name: 'Content' }).waitFor();
    assert.equal(await signedInAs(page), 'Pat Reporter');
    await context.close();

    const again = await freshPage();
    await again.page.goto(link);
    const alert = again.page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /used already/);
    await again.context.close();
  });

  it('sends a browser whose key was revoked back to sign in, with a message', async () => {
    const { context, page } = await freshPage();
    await page.goto(`${srv.base}/`);
    await page.getByLabel('Name', { exact: true }).fill('Pat Reporter');
    await page.getByLabel('Password', { exact: true }).fill('tide tables 42');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Content' }).waitFor();
    const keys = execFileSync(server, ['key', 'list', '--name', 'Pat Reporter', '--data', srv.dir], { encoding: 'utf8' })
      .trim()
      .split('\n');
    const newest = keys.at(-1).split(/\s+/)[0];
    execFileSync(server, ['key', 'revoke', '--public-key', newest, '--data', srv.dir]);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Copydesk' }).waitFor();
    assert.match(await page.getByRole('alert').innerText(), /no longer accepted/);
    await context.close();
  });

  it('signs out by revoking the key on the server: a copy of it is refused afterwards', async () => {
    const { context, page, copy } = await signInWithPassword();
    assert.deepEqual(await meWith(copy), { status: 200, code: undefined }, 'the copied key works while signed in');
    assert.equal(await signedInAs(page), 'Pat Reporter');
    assert.match(await page.locator('.hint', { hasText: 'Signing out' }).innerText(), /revokes it on the server/);
    const revoked = page.waitForResponse((r) => r.url().endsWith('/v3/sign-out'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    assert.equal((await revoked).status(), 200);
    await page.getByRole('heading', { name: 'Sign in to Copydesk' }).waitFor();
    assert.equal(await page.getByRole('alert').count(), 0, 'a sign-out that worked needs no warning');
    assert.deepEqual(await meWith(copy), { status: 403, code: 'token_invalid' }, 'the copied key is refused after signing out');
    const keys = execFileSync(server, ['key', 'list', '--name', 'Pat Reporter', '--data', srv.dir], { encoding: 'utf8' });
    assert.ok(!keys.includes(copy.public_key), `the key is gone from the list:\n${keys}`);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Copydesk' }).waitFor();
    await context.close();
  });

  it('signs out even when the server cannot be reached, saying the key could not be revoked', async () => {
    const { context, page, copy } = await signInWithPassword();
    await signedInAs(page);
    await page.route('**/v3/sign-out', (route) => route.abort('internetdisconnected'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Copydesk' }).waitFor();
    const alert = page.getByRole('alert');
    assert.match(await alert.innerText(), /could not be revoked on the server/);
    await shot(page, 'sign-out-unreachable');
    // Signed out here all the same; the key itself still works until revoked.
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Copydesk' }).waitFor();
    assert.equal((await meWith(copy)).status, 200);
    execFileSync(server, ['key', 'revoke', '--public-key', copy.public_key, '--data', srv.dir]);
    await context.close();
  });
});

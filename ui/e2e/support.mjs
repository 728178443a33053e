// Real parts for the browser tests: a real copydesk-server on a loopback
// port with its own data directory, real key pairs, and Debian's chromium
// driven by playwright-core.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveOn, tokenFor } from './service.mjs';
import { after, before } from 'node:test';

export { tokenFor };

const here = dirname(fileURLToPath(import.meta.url));
export const repo = join(here, '..', '..');
export const server = process.env.COPYDESK_SERVER ?? join(repo, 'target', 'debug', 'copydesk-server');
if (!process.env.COPYDESK_SERVER) refuseStale(server);
export const artifacts = join(here, 'artifacts');
mkdirSync(artifacts, { recursive: true });

/** Stops the run when a source cargo built `binary` from (its dep-info
 * lists them) changed after it was: the tests would run the old server. */
function refuseStale(binary) {
  if (!existsSync(binary)) throw new Error(`${binary} is missing: build it first with \`cargo build -p copydesk-server\``);
  const depInfo = `${binary}.d`;
  if (!existsSync(depInfo)) return;
  const built = statSync(binary).mtimeMs;
  for (const line of readFileSync(depInfo, 'utf8').split('\n')) {
    const at = line.indexOf(': ');
    if (at < 0) continue;
    const sources = line.slice(at + 2);
    // Make's syntax: a space within a path is escaped.
    for (const source of sources.replaceAll('\\ ', '\0').split(/\s+/)) {
      const path = source.replaceAll('\0', ' ');
      if (path && existsSync(path) && statSync(path).mtimeMs > built) {
        throw new Error(`${binary} is older than ${path}: build it again with \`cargo build -p copydesk-server\``);
      }
    }
  }
}

/** Starts a server on a fresh data directory; resolves once it listens. */
export async function startServer(extra = []) {
  const dir = mkdtempSync(join(tmpdir(), 'copydesk-e2e-'));
  const { child, base } = await serveOn(server, dir, extra);
  return {
    base,
    dir,
    /** A new user with a key pair (the JSON `key create --json` prints). */
    key(name, roles = [], actions = []) {
      const args = ['key', 'create', '--data', dir, '--name', name, '--json'];
      for (const role of roles) args.push('--role', role);
      for (const action of actions) args.push('--action', action);
      return JSON.parse(execFileSync(server, args, { encoding: 'utf8' }));
    },
    /** Calls the service as `key` (for setting the scene). */
    async call(key, method, path, body) {
      const token = await tokenFor(key);
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    },
    stop() {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `copydesk-server sync` for the replica in `dir`. */
export function syncOnce(dir, centralBase, key) {
  const keyFile = join(dir, 'remote-key.json');
  execFileSync('sh', ['-c', `cat > '${keyFile}'`], { input: JSON.stringify(key) });
  return execFileSync(server, ['sync', '--data', dir, '--remote', centralBase, '--key-file', keyFile], { encoding: 'utf8' });
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Gives each named user of `srv` their password (`{ name: password }`). */
export function setPasswords(srv, passwords) {
  for (const [name, password] of Object.entries(passwords)) {
    execFileSync(server, ['user', 'password', name, '--data', srv.dir], { input: `${password}\n` });
  }
}

/** A fresh browser context signed in with `name`'s password, at the story `uuid`. */
export async function openStoryAs(browser, srv, name, password, uuid, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
  await page.goto(`${srv.base}/`);
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Content' }).waitFor();
  await page.goto(`${srv.base}/#/content/${uuid}`);
  await page.getByRole('textbox', { name: 'Body' }).waitFor();
  return { context, page };
}

/** A browser context signed in as `key` on `srv`, at the content list; `options` go to the context (e.g. `timezoneId`). */
export async function signedIn(browser, srv, key, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
  await page.goto(`${srv.base}/`);
  await page.getByLabel('Your key').fill(JSON.stringify(key));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Content' }).waitFor();
  return { context, page };
}

export async function shot(page, name) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}

/**
 * A test file's desk: a real server with an admin key and a browser, started
 * before the file's tests and stopped after them (`setUp` is given the
 * server once it runs). Read its fields inside tests.
 */
export function aDesk(adminName = 'Ada Admin', setUp = () => {}) {
  const desk = {};
  before(async () => {
    desk.srv = await startServer();
    desk.admin = desk.srv.key(adminName, ['admin']);
    setUp(desk.srv);
    desk.browser = await launch();
  });
  after(async () => {
    await desk.browser?.close();
    desk.srv?.stop();
  });
  return desk;
}

/** The reporter and the desk of the tests of two people in one story, with their roles and passwords. */
export const PEOPLE = {
  'Rita Reporter': { roles: ['journalist'], password: 'tide tables 42' },
  'Dana Desk': { roles: ['editor'], password: 'night shift 7' },
};

/**
 * A desk (see `aDesk`) where each of `people` (`{ name: { roles, password } }`)
 * has a key and a password, and `desk.openAs(name, uuid)` opens a story in a
 * fresh browser signed in as them.
 */
export function aDeskOf(people = PEOPLE) {
  const desk = aDesk('Ada Admin', (srv) => {
    for (const [name, { roles }] of Object.entries(people)) srv.key(name, roles);
    setPasswords(srv, Object.fromEntries(Object.entries(people).map(([name, { password }]) => [name, password])));
  });
  desk.openAs = (name, uuid, viewport) => openStoryAs(desk.browser, desk.srv, name, people[name].password, uuid, viewport);
  return desk;
}

/** The record of an answer that may be the record or a one-element list of it. */
export function one(answer) {
  return Array.isArray(answer) ? answer[0] : answer;
}

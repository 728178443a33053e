// What the desktop test and benchmark share: child processes (Xvfb,
// tauri-driver, the headless service that fills a replica) and a WebDriver
// session on the real app.

import { execFileSync, spawn } from 'node:child_process';
import { request } from 'node:http';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { remote } from 'webdriverio';
import { serveOn, tokenFor } from '../e2e/service.mjs';

const children = [];

/** Starts a child process, stopped again by `stopAll`; `input`, if given, is written to its stdin. */
export function start(command, args, env = {}, input = undefined) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  child.stderr.on('data', (d) => process.env.COPYDESK_DEBUG && process.stderr.write(d));
  if (input !== undefined) child.stdin.end(input);
  children.push(child);
  return child;
}

/**
 * What a desktop login gives the app: a D-Bus session bus and an unlocked
 * Secret Service keychain (gnome-keyring), both kept in `dir`. Resolves with
 * the environment that reaches them.
 */
export async function startKeychain(dir) {
  const env = {
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'bus')}`,
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_RUNTIME_DIR: join(dir, 'run'),
  };
  mkdirSync(env.XDG_DATA_HOME, { recursive: true });
  mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  start('dbus-daemon', ['--session', '--nofork', `--address=${env.DBUS_SESSION_BUS_ADDRESS}`], env);
  await until(() => existsSync(join(dir, 'bus')), 'the session bus never came up');
  // A login keyring, created and unlocked with the password on stdin.
  start('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], env, 'login password');
  const owned = () => {
    try {
      return execFileSync(
        'dbus-send',
        ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'],
        { env: { ...process.env, ...env }, encoding: 'utf8' },
      ).includes('boolean true');
    } catch {
      return false;
    }
  };
  await until(owned, 'the keychain never took the Secret Service name');
  return env;
}

/** Waits until `done()` (which may be async) holds, checking every `every` ms; fails with `failure` after `timeout` ms. */
export async function until(done, failure, timeout = 10000, every = 100) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    if (await done()) return;
    await sleep(every);
  }
  throw new Error(failure);
}

export function stopAll() {
  for (const child of children.splice(0).reverse()) child.kill('SIGTERM');
}

/** Waits until something answers HTTP on the loopback `port`. */
export async function listening(port) {
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((resolve) => {
      const r = request({ host: '127.0.0.1', port, path: '/status' }, () => resolve(true));
      r.on('error', () => resolve(false));
      r.end();
    });
    if (up) return;
    await sleep(100);
  }
  throw new Error(`nothing listens on ${port}`);
}

/**
 * Starts Xvfb (unless there is a display) and tauri-driver on `port`, the
 * app's replica in `data`, `env` added to the app's. Resolves with the
 * environment the app runs in.
 */
export async function startDriver(driver, port, data, env = {}) {
  const display = process.env.DISPLAY ?? `:${90 + (port % 10)}`;
  if (!process.env.DISPLAY) {
    start('Xvfb', [display, '-screen', '0', '1280x800x24', '-nolisten', 'tcp']);
    await sleep(500);
  }
  // Its WebKitWebDriver gets a port of its own (the default, 4445, may be another session's).
  const appEnv = { ...env, DISPLAY: display, COPYDESK_DATA: data };
  start(driver, ['--port', String(port), '--native-port', String(port + 100)], appEnv);
  await listening(port);
  return appEnv;
}

/** A WebDriver session: launches the app at `app` through tauri-driver on `port`. */
export function openApp(port, app) {
  return remote({
    hostname: '127.0.0.1',
    port,
    logLevel: 'error',
    // Classic WebDriver only: WebKitWebDriver speaks no WebDriver BiDi.
    capabilities: { browserName: 'wry', 'tauri:options': { application: app }, 'wdio:enforceWebDriverClassic': true },
  });
}

/** Writes stories into the replica at `dir` through the service itself, run headless. */
export async function fillReplica(server, dir, titles) {
  const { child, base } = await serveOn(server, dir);
  const key = JSON.parse(execFileSync(server, ['key', 'create', '--data', dir, '--name', 'seed', '--role', 'admin', '--json'], { encoding: 'utf8' }));
  const token = await tokenFor(key);
  let next = 0;
  const worker = async () => {
    while (next < titles.length) {
      const title = titles[next++];
      const made = await fetch(`${base}/v3/content`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title, type: 'article', content: `<p>${title}.</p>` }),
      });
      if (!made.ok) throw new Error(`filling the replica: ${made.status} ${await made.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  child.kill('SIGTERM');
  await new Promise((resolve) => child.on('exit', resolve));
}

export const repoPath = (...parts) => join(import.meta.dirname, '..', '..', ...parts);

// The desktop app's benchmark: cold start to a usable content list, memory
// when idle with 10,000 items in its replica, and the .deb's size. Prints
// medians and the worst run; the machine is named by the caller.
//
//   node desktop/bench.mjs --data DIR --items 10000 --runs 5
// The items are written into DIR first by the service itself, run headless.

import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { request } from 'node:http';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { remote } from 'webdriverio';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const data = arg('data');
const runs = Number(arg('runs', '5'));
const items = Number(arg('items', '10000'));
const server = process.env.COPYDESK_SERVER ?? join(repo, 'target', 'release', 'copydesk-server');
const app = process.env.COPYDESK_APP ?? join(repo, 'target', 'release', 'copydesk');
const driver = process.env.TAURI_DRIVER ?? join(repo, 'target', 'tools', 'bin', 'tauri-driver');
if (!data) throw new Error('--data DIR is required');

const children = [];
const start = (command, args, env) => {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: 'ignore' });
  children.push(child);
  return child;
};
async function listening(port) {
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

/** Every process whose ancestry includes `root`, with `root`. */
function tree(root) {
  const parents = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // Gone meanwhile.
    }
  }
  const inside = (pid) => {
    for (let p = pid; p > 1; p = parents.get(p) ?? 0) if (p === root) return true;
    return false;
  };
  return [...parents.keys()].filter(inside);
}

/** The app's own process: the one running its binary. */
function appPid() {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0] === app) return Number(entry);
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

/** Proportional set size (shared pages split between their users), in MiB, of the app and its WebKit helpers. */
function memory(root) {
  let pss = 0;
  let rss = 0;
  for (const pid of tree(root)) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // Gone meanwhile.
    }
  }
  return { pss: pss / 1024, rss: rss / 1024 };
}

/** Writes `count` stories into the replica at `dir` through the service, headless. */
async function seed(dir, count) {
  const child = spawn(server, ['serve', '--listen', '127.0.0.1:0', '--data', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  const base = await new Promise((resolve, reject) => {
    let seen = '';
    const read = (d) => {
      seen += d;
      const found = /listening on (http:\/\/[0-9.:]+)/.exec(seen);
      if (found) resolve(found[1]);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', () => reject(new Error(seen)));
  });
  const key = JSON.parse(execFileSync(server, ['key', 'create', '--data', dir, '--name', 'seed', '--role', 'admin', '--json'], { encoding: 'utf8' }));
  const { SignJWT } = await import('jose');
  const token = await new SignJWT({ pk: key.public_key }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(key.private_key));
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const made = await fetch(`${base}/v3/content`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: `Story ${n}`, type: 'article', content: `<p>Text of story ${n}.</p>` }),
      });
      if (!made.ok) throw new Error(`seeding: ${made.status} ${await made.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  child.kill('SIGTERM');
  await new Promise((resolve) => child.on('exit', resolve));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const worst = (xs) => Math.max(...xs);

const seeding = performance.now();
await seed(data, items);
console.log(`seeded ${items} stories in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

const display = process.env.DISPLAY ?? ':98';
if (!process.env.DISPLAY) {
  start('Xvfb', [display, '-screen', '0', '1280x800x24', '-nolisten', 'tcp']);
  await sleep(500);
}
start(driver, ['--port', '4445'], { DISPLAY: display, COPYDESK_DATA: data });
await listening(4445);

const starts = [];
const pss = [];
const rss = [];
try {
  for (let run = 0; run < runs; run++) {
    const began = performance.now();
    const browser = await remote({
      hostname: '127.0.0.1',
      port: 4445,
      logLevel: 'error',
      capabilities: { browserName: 'wry', 'tauri:options': { application: app }, 'wdio:enforceWebDriverClassic': true },
    });
    await browser.waitUntil(async () => (await browser.$$('table.list tbody tr').length) > 0, { timeout: 30000, interval: 20 });
    starts.push(performance.now() - began);
    await sleep(5000);
    const pid = appPid();
    if (pid) {
      const used = memory(pid);
      pss.push(used.pss);
      rss.push(used.rss);
    }
    await browser.deleteSession();
    await sleep(500);
  }
} finally {
  for (const child of children.reverse()) child.kill('SIGTERM');
}

const debDir = join(repo, 'target', 'release', 'bundle', 'deb');
const deb = existsSync(debDir) ? readdirSync(debDir).find((f) => f.endsWith('.deb')) : undefined;
console.log(`copydesk desktop bench: ${runs} launches on a replica of ${items} stories`);
console.log(`cold start to a usable content list: median ${median(starts).toFixed(0)} ms, worst ${worst(starts).toFixed(0)} ms`);
if (pss.length) {
  console.log(`memory when idle (app + WebKit helpers): PSS median ${median(pss).toFixed(0)} MiB (worst ${worst(pss).toFixed(0)}), RSS median ${median(rss).toFixed(0)} MiB`);
}
console.log(deb ? `.deb: ${deb}, ${(statSync(join(debDir, deb)).size / 1048576).toFixed(1)} MiB` : '.deb: not built (bash scripts/package-deb.sh)');

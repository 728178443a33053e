// The desktop app's benchmark: cold start to a usable content list, memory
// when idle with 10,000 items in its replica, and the .deb's size. Prints
// medians and the worst run; the machine is named by the caller.
//
//   node desktop/bench.mjs --data DIR --items 10000 --runs 5
// The items are written into DIR first by the service itself, run headless.

import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fillReplica, openApp, repoPath, startDriver, stopAll } from './driver.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const data = arg('data');
const runs = Number(arg('runs', '5'));
const items = Number(arg('items', '10000'));
const app = process.env.COPYDESK_APP ?? repoPath('target', 'release', 'copydesk');
const server = process.env.COPYDESK_SERVER ?? repoPath('target', 'release', 'copydesk-server');
const driver = process.env.TAURI_DRIVER ?? repoPath('target', 'tools', 'bin', 'tauri-driver');
if (!data) throw new Error('--data DIR is required');

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

/** Of one process's smaps, in KiB: its PSS and RSS, and the PSS of mapped shared libraries. */
function usage(smaps) {
  let pss = 0;
  let rss = 0;
  let libraries = 0;
  let library = false;
  for (const line of smaps.split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) library = /\.so[.\d]*$/.test(mapping[1]);
    else if (line.startsWith('Pss:')) {
      const kib = Number(line.split(/\s+/)[1]);
      pss += kib;
      if (library) libraries += kib;
    } else if (line.startsWith('Rss:')) rss += Number(line.split(/\s+/)[1]);
  }
  return { pss, rss, libraries };
}

/**
 * Proportional set size (shared pages split between their users), in MiB, of
 * the app and its WebKit helpers: in all, by process, and how much of it is
 * shared libraries' code (GTK, WebKit, Mesa) rather than data.
 */
function memory(root) {
  let pss = 0;
  let rss = 0;
  let libraries = 0;
  const each = {};
  for (const pid of tree(root)) {
    try {
      const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      const own = usage(readFileSync(`/proc/${pid}/smaps`, 'utf8'));
      pss += own.pss;
      rss += own.rss;
      libraries += own.libraries;
      each[name] = (each[name] ?? 0) + own.pss / 1024;
    } catch {
      // Gone meanwhile.
    }
  }
  return { pss: pss / 1024, rss: rss / 1024, libraries: libraries / 1024, each };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const worst = (xs) => Math.max(...xs);

const seeding = performance.now();
await fillReplica(server, data, Array.from({ length: items }, (_, n) => `Story ${n}`));
console.log(`seeded ${items} stories in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

await startDriver(driver, 4445, data);

const starts = [];
const pss = [];
const rss = [];
const perProcess = [];
const libraries = [];
try {
  for (let run = 0; run < runs; run++) {
    const began = performance.now();
    const browser = await openApp(4445, app);
    await browser.waitUntil(async () => (await browser.$$('table.list tbody tr').length) > 0, { timeout: 30000, interval: 20 });
    starts.push(performance.now() - began);
    await sleep(5000);
    const pid = appPid();
    if (pid) {
      const used = memory(pid);
      pss.push(used.pss);
      rss.push(used.rss);
      perProcess.push(used.each);
      libraries.push(used.libraries);
    }
    await browser.deleteSession();
    await sleep(500);
  }
} finally {
  stopAll();
}

const debDir = repoPath('target', 'release', 'bundle', 'deb');
const deb = existsSync(debDir) ? readdirSync(debDir).find((f) => f.endsWith('.deb')) : undefined;
console.log(`copydesk desktop bench: ${runs} launches on a replica of ${items} stories`);
console.log(`cold start to a usable content list: median ${median(starts).toFixed(0)} ms, worst ${worst(starts).toFixed(0)} ms`);
if (pss.length) {
  console.log(`memory when idle (app + WebKit helpers): PSS median ${median(pss).toFixed(0)} MiB (worst ${worst(pss).toFixed(0)}), RSS median ${median(rss).toFixed(0)} MiB`);
  const names = [...new Set(perProcess.flatMap((each) => Object.keys(each)))];
  const parts = names.map((name) => `${name} ${median(perProcess.map((each) => each[name] ?? 0)).toFixed(0)}`);
  console.log(`  PSS by process, median MiB: ${parts.join(', ')}`);
  console.log(`  of which shared libraries' pages: median ${median(libraries).toFixed(0)} MiB`);
}
console.log(deb ? `.deb: ${deb}, ${(statSync(`${debDir}/${deb}`).size / 1048576).toFixed(1)} MiB` : '.deb: not built (bash scripts/package-deb.sh)');

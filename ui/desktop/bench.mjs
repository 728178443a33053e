// The desktop app's benchmark: cold start to a usable content list, memory
// when idle with 10,000 items in its replica, and the .deb's size. The idle
// memory is set against its floor: an empty Tauri 2 window on a blank page
// (bench/empty-window), launched and measured the same way in the same runs,
// so it reads as floor + Copydesk's own part. Prints medians and the worst
// run; the machine is named by the caller.
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
const empty = process.env.COPYDESK_EMPTY_WINDOW ?? repoPath('target', 'release', 'copydesk-empty-window');
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

/** An app's own process: the one running its `binary`. */
function appPid(binary) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0] === binary) return Number(entry);
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

/**
 * Waits (up to 10 s) until none of `pids` runs any more, so the next launch
 * shares no library pages with a window on its way out (which would lower its PSS).
 */
async function gone(pids) {
  const end = Date.now() + 10000;
  while (Date.now() < end && pids.some((pid) => existsSync(`/proc/${pid}`))) await sleep(50);
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
      // The app's own process is "app" for both apps, so their parts line up.
      const name = pid === root ? 'app' : readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
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

// Both apps draw without GPU compositing, as Copydesk does unless told
// otherwise (`draw_in_software` in src-tauri/src/lib.rs), so the floor is the
// same WebKit configuration; Copydesk, finding the switch set, starts as it
// would after starting itself again with it.
await startDriver(driver, 4445, data, { WEBKIT_DISABLE_COMPOSITING_MODE: '1' });

/** What one launch's idle memory adds up to: PSS and RSS in all, by process, and shared libraries' part. */
const samples = () => ({ pss: [], rss: [], each: [], libraries: [] });
const copydesk = samples();
const floor = samples();

/**
 * Measures `binary`'s process tree once it has settled (the same five
 * seconds for both apps) into `into`, then ends the session and waits until
 * the tree is gone.
 */
async function measure(browser, binary, into) {
  await sleep(5000);
  const pid = appPid(binary);
  const pids = pid ? tree(pid) : [];
  if (pid) {
    const used = memory(pid);
    into.pss.push(used.pss);
    into.rss.push(used.rss);
    into.each.push(used.each);
    into.libraries.push(used.libraries);
  }
  await browser.deleteSession();
  await gone(pids);
  await sleep(500);
}

const starts = [];
try {
  // Copydesk and the empty window take turns, so both see the same machine.
  for (let run = 0; run < runs; run++) {
    const began = performance.now();
    const browser = await openApp(4445, app);
    await browser.waitUntil(async () => (await browser.$$('table.list tbody tr').length) > 0, { timeout: 30000, interval: 20 });
    starts.push(performance.now() - began);
    await measure(browser, app, copydesk);

    const blank = await openApp(4445, empty);
    await blank.waitUntil(async () => (await blank.execute(() => document.readyState)) === 'complete', { timeout: 30000, interval: 20 });
    await measure(blank, empty, floor);
  }
} finally {
  stopAll();
}

const debDir = repoPath('target', 'release', 'bundle', 'deb');
const deb = existsSync(debDir) ? readdirSync(debDir).find((f) => f.endsWith('.deb')) : undefined;
console.log(`copydesk desktop bench: ${runs} launches on a replica of ${items} stories`);
console.log(`cold start to a usable content list: median ${median(starts).toFixed(0)} ms, worst ${worst(starts).toFixed(0)} ms`);
const mib = (x) => `${x.toFixed(0)} MiB`;
/** Median PSS by process name, in MiB. */
const byProcess = (m) => {
  const names = [...new Set(m.each.flatMap((each) => Object.keys(each)))];
  return Object.fromEntries(names.map((name) => [name, median(m.each.map((each) => each[name] ?? 0))]));
};
const show = (parts) => Object.entries(parts).map(([name, x]) => `${name} ${x.toFixed(0)}`).join(', ');
if (copydesk.pss.length && floor.pss.length) {
  const floorPss = median(floor.pss);
  const copydeskPss = median(copydesk.pss);
  console.log(`memory when idle, PSS summed over each app's process tree (the app and its WebKit web and network processes), median of ${copydesk.pss.length} runs:`);
  console.log(`  floor, an empty Tauri 2 window: ${mib(floorPss)} (worst ${mib(worst(floor.pss))}), RSS ${mib(median(floor.rss))}, shared libraries' pages ${mib(median(floor.libraries))}`);
  console.log(`  Copydesk, ${items} stories in its replica: ${mib(copydeskPss)} (worst ${mib(worst(copydesk.pss))}), RSS ${mib(median(copydesk.rss))}, shared libraries' pages ${mib(median(copydesk.libraries))}`);
  console.log(`  Copydesk's own part (Copydesk - floor): ${mib(copydeskPss - floorPss)}; shared libraries' pages ${mib(median(copydesk.libraries) - median(floor.libraries))} of it`);
  const floorParts = byProcess(floor);
  const copydeskParts = byProcess(copydesk);
  console.log(`  PSS by process, median MiB: floor ${show(floorParts)}; Copydesk ${show(copydeskParts)}`);
  const names = [...new Set([...Object.keys(floorParts), ...Object.keys(copydeskParts)])];
  const own = Object.fromEntries(names.map((name) => [name, (copydeskParts[name] ?? 0) - (floorParts[name] ?? 0)]));
  console.log(`  Copydesk's own part by process, MiB: ${show(own)}`);
  console.log(`  every run, MiB: floor ${floor.pss.map((x) => x.toFixed(0)).join(' ')}; Copydesk ${copydesk.pss.map((x) => x.toFixed(0)).join(' ')}`);
}
console.log(deb ? `.deb: ${deb}, ${(statSync(`${debDir}/${deb}`).size / 1048576).toFixed(1)} MiB` : '.deb: not built (bash scripts/package-deb.sh)');

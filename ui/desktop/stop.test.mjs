// The desktop app stopped by the system (SIGTERM, as a logout or `kill`
// sends it) stops cleanly: it exits 0 and leaves its replica's copydesk.db
// holding everything, with the write-ahead log emptied. It runs the app as
// it starts by default, drawing without GPU compositing.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { repoPath, start, stopAll, until } from './driver.mjs';

const app = process.env.COPYDESK_APP ?? repoPath('target', 'debug', 'copydesk');

after(stopAll);

test('a SIGTERM closes the app cleanly and checkpoints its replica', async () => {
  const data = mkdtempSync(join(tmpdir(), 'copydesk-stop-'));
  let display = process.env.DISPLAY;
  if (!display) {
    display = ':93';
    start('Xvfb', [display, '-screen', '0', '1280x800x24', '-nolisten', 'tcp']);
    await sleep(500);
  }
  for (const name of ['WEBKIT_DISABLE_COMPOSITING_MODE', 'COPYDESK_GPU_COMPOSITING']) {
    assert.equal(process.env[name], undefined, `${name} is set where the app starts: unset it to run this test`);
  }
  const child = start(app, [], { DISPLAY: display, COPYDESK_DATA: data });
  let said = '';
  child.stdout.on('data', (d) => (said += d));
  child.stderr.on('data', (d) => (said += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  await until(() => /serving its replica/.test(said), `the app never served its replica: ${said}`, 30000);

  // By default the app starts itself again, the same process, with WebKit
  // drawing without GPU compositing.
  const environment = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0');
  assert.ok(environment.includes('WEBKIT_DISABLE_COMPOSITING_MODE=1'), 'the app draws without GPU compositing by default');

  // The launch wrote its key: that write is in the WAL, not yet in copydesk.db.
  const wal = join(data, 'copydesk.db-wal');
  assert.ok(existsSync(wal) && statSync(wal).size > 0, 'the running app has writes in its WAL');

  child.kill('SIGTERM');
  const { code, signal } = await Promise.race([
    exited,
    sleep(20000, undefined, { ref: false }).then(() => ({ code: 'still running', signal: null })),
  ]);
  assert.equal(code, 0, `a clean exit (signal ${signal}): ${said}`);
  assert.ok(!existsSync(wal) || statSync(wal).size === 0, 'the WAL is empty or gone');
  assert.match(said, /the replica is checkpointed/);
});

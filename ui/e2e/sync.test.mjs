// The sync screen on a replica: a conflict made by two real servers, shown
// side by side and resolved; why a replica is offline, a certificate it
// does not trust told apart from an outage.

import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { launch, server, shot, signedIn, startServer, syncOnce } from './support.mjs';

let central;
let replica;
let browser;

before(async () => {
  central = await startServer();
  replica = await startServer();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  replica?.stop();
  central?.stop();
});

it('shows a conflict side by side and keeps mine when asked', async () => {
  const desk = central.key('Desk', ['admin']);
  const laptop = central.key('Laptop', ['editor']);
  const me = replica.key('Me', ['admin']);
  const story = await central.call(desk, 'POST', '/v3/content', { title: 'Dam', type: 'article', abstract: 'first' });
  syncOnce(replica.dir, central.base, laptop);
  // Both sides change the abstract.
  await central.call(desk, 'PUT', `/v3/content/${story.uuid}`, { abstract: 'the desk wrote this' });
  await replica.call(me, 'PUT', `/v3/content/${story.uuid}`, { abstract: 'I wrote this offline' });
  const out = syncOnce(replica.dir, central.base, laptop);
  assert.match(out, /conflicts 1/);

  const { context, page } = await signedIn(browser, replica, me);
  await page.getByRole('link', { name: 'Sync', exact: true }).click();
  const conflict = page.getByRole('article', { name: 'Conflict on abstract' });
  await conflict.waitFor();
  assert.match(await conflict.getByRole('region', { name: 'Yours' }).innerText(), /I wrote this offline/);
  assert.match(await conflict.getByRole('region', { name: 'Theirs' }).innerText(), /the desk wrote this/);
  await shot(page, 'sync-conflict');
  await conflict.getByRole('button', { name: /Keep mine/ }).click();
  await page.getByText('No conflicts.').waitFor();
  await context.close();

  syncOnce(replica.dir, central.base, laptop);
  const there = await central.call(desk, 'GET', `/v3/content/${story.uuid}`);
  assert.equal(there.abstract, 'I wrote this offline');
});

it('settles a paragraph conflict in its context, the rest of the story merged', async () => {
  const desk = central.key('Desk two', ['admin']);
  const laptop = central.key('Laptop two', ['editor']);
  const me = replica.key('Me two', ['admin']);
  const body = (a, b, c) => `<p>${a}</p><p>${b}</p><p>${c}</p>`;
  const story = await central.call(desk, 'POST', '/v3/content', {
    title: 'Fees',
    type: 'article',
    content: body('The board met.', 'Fees rise by 5% next year.', 'Students protest.'),
  });
  syncOnce(replica.dir, central.base, laptop);
  await central.call(desk, 'PUT', `/v3/content/${story.uuid}`, {
    content: body('The board met.', 'Fees rise by 7% next year.', 'Students protest loudly.'),
  });
  await replica.call(me, 'PUT', `/v3/content/${story.uuid}`, {
    content: body('The board met on Monday.', 'Fees rise by 6% next year.', 'Students protest.'),
  });
  assert.match(syncOnce(replica.dir, central.base, laptop), /conflicts 1/);

  const { context, page } = await signedIn(browser, replica, me);
  // The open story says it was merged, and that a paragraph waits.
  await page.goto(`${replica.base}/#/content/${story.uuid}`);
  await page.getByText(/your edits here were merged with the newsroom server's changes; one conflict to settle/).waitFor();
  await page.getByRole('link', { name: 'Sync', exact: true }).click();
  const conflict = page.getByRole('article', { name: 'Conflict on content' });
  await conflict.getByRole('heading', { name: /Paragraph 2 of the field “content”/ }).waitFor();
  assert.equal(await conflict.getByLabel('The paragraph before').innerText(), 'The board met on Monday.');
  assert.equal(await conflict.getByLabel('The paragraph after').innerText(), 'Students protest loudly.');
  const yours = conflict.getByRole('region', { name: 'Yours' });
  assert.equal(await yours.locator('.conflict-text').innerText(), 'Fees rise by 6% next year.');
  assert.deepEqual(await yours.locator('ins').allInnerTexts(), ['6']);
  assert.deepEqual(await conflict.getByRole('region', { name: 'Theirs' }).locator('ins').allInnerTexts(), ['7']);
  await shot(page, 'sync-paragraph-conflict');
  // Named by its headline, which opens the story.
  await conflict.getByRole('link', { name: '“Fees”' }).click();
  await page.waitForURL(`**/#/content/${story.uuid}`);
  await page.getByText(/one conflict to settle/).waitFor();
  await page.goBack();
  const settled = page.getByRole('article', { name: 'Conflict on content' });
  await settled.getByRole('button', { name: /Keep mine/ }).click();
  await page.getByText('No conflicts.').waitFor();
  // Keeping mine is a change made here: it waits to go, listed by headline.
  const waiting = page.getByRole('list', { name: 'Changes waiting to go' });
  await waiting.getByRole('link', { name: '“Fees”' }).waitFor({ timeout: 15000 });
  assert.match(await waiting.innerText(), /story “Fees” \(changed here since/);
  await context.close();

  syncOnce(replica.dir, central.base, laptop);
  const there = await central.call(desk, 'GET', `/v3/content/${story.uuid}`);
  assert.equal(there.content, body('The board met on Monday.', 'Fees rise by 6% next year.', 'Students protest loudly.'));
});

/**
 * An HTTPS front for `target` with a self-signed certificate for localhost
 * (made with openssl), as a network that intercepts secure connections
 * shows one: no authority this machine trusts signed it.
 */
async function untrustedFront(target) {
  const dir = mkdtempSync(join(tmpdir(), 'copydesk-tls-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  const port = Number(new URL(target).port);
  const front = tls.createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (client) => {
    const upstream = net.connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  front.on('tlsClientError', () => {});
  await new Promise((resolve) => front.listen(0, '127.0.0.1', resolve));
  return {
    base: `https://localhost:${front.address().port}`,
    close: () => {
      front.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A sync that must fail; what it printed. Run without blocking this process,
 * which serves the HTTPS front.
 */
async function failingSync(dir, base, key) {
  const keyFile = join(dir, 'remote-key.json');
  writeFileSync(keyFile, JSON.stringify(key));
  try {
    await promisify(execFile)(server, ['sync', '--data', dir, '--remote', base, '--key-file', keyFile]);
  } catch (err) {
    return `${err.stdout ?? ''}${err.stderr ?? ''}`;
  }
  assert.fail(`the sync with ${base} passed`);
}

it('says why it is offline, and tells a certificate it does not trust from an outage', async () => {
  const laptop = central.key('Laptop three', ['editor']);
  const away = await startServer();
  const hotel = await startServer();
  const front = await untrustedFront(central.base);
  try {
    // A server that is not there: offline, and why.
    await failingSync(away.dir, 'http://127.0.0.1:1', laptop);
    const me = away.key('Me away', ['admin']);
    let { context, page } = await signedIn(browser, away, me);
    await page.getByRole('link', { name: /^Offline · 0 waiting/ }).click();
    await page.getByText('Offline: your work is kept here').waitFor();
    assert.match(await page.locator('dd.offline-reason').innerText(), /Connection refused/);
    await context.close();

    // A certificate this machine does not trust: said so, not "offline".
    assert.match(await failingSync(hotel.dir, front.base, laptop), /invalid peer certificate/);
    const guest = hotel.key('Me at the hotel', ['admin']);
    ({ context, page } = await signedIn(browser, hotel, guest));
    await page.getByRole('link', { name: /^Server not trusted · 0 waiting/ }).click();
    await page.getByText(/does not trust the newsroom server’s certificate, so nothing was sent/).waitFor();
    assert.match(await page.locator('dd.offline-reason').innerText(), /invalid peer certificate/);
    await shot(page, 'sync-certificate-untrusted');
    await context.close();
  } finally {
    front.close();
    hotel.stop();
    away.stop();
  }
});

it('names what the key may not read, and shows a failed round as failed', async () => {
  const desk = central.key('Print desk', ['admin']);
  const journalist = central.key('Journalist', ['journalist']);
  const laptop = await startServer();
  try {
    const workflow = await central.call(desk, 'POST', '/v3/workflow', { name: 'Print run', slug: 'print-run' });
    const issue = await central.call(desk, 'POST', '/v3/issue', { label: 'Monday' });
    await central.call(desk, 'POST', '/v3/print-document', {
      label: 'Front page',
      tracking_label: 'monday/front.indd',
      workflow_id: (workflow[0] ?? workflow).uuid,
      issue_id: (issue[0] ?? issue).uuid,
    });
    await central.call(desk, 'POST', '/v3/content', { title: 'Dam holds', type: 'article' });
    assert.match(syncOnce(laptop.dir, central.base, journalist), /print documents \(1, needs PRINTDOCUMENT create\)/);
    const me = laptop.key('Me on the laptop', ['admin']);
    const { context, page } = await signedIn(browser, laptop, me);
    await page.getByRole('link', { name: /^Online · 0 waiting · print documents not synced/ }).click();
    const notSynced = page.getByRole('list', { name: 'Not synced' });
    assert.match(await notSynced.innerText(), /print documents \(1\): your key lacks PRINTDOCUMENT create/);
    await shot(page, 'sync-not-readable');

    // A round the server refuses (a key it does not know): failed, not online, with the last good sync.
    const forged = { ...journalist, private_key: '0'.repeat(64) };
    await assert.rejects(async () => syncOnce(laptop.dir, central.base, forged));
    await page.reload();
    await page.getByRole('link', { name: /^Sync failed · 0 waiting/ }).waitFor();
    assert.match(await page.locator('p.sync-failed').innerText(), /^Last sync failed: .*token_invalid.* · last good sync /);
    await shot(page, 'sync-failed');
    await context.close();
  } finally {
    laptop.stop();
  }
});

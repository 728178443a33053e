// The sync screen on a replica: a conflict made by two real servers, shown
// side by side and resolved.

import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shot, signedIn, startServer, syncOnce } from './support.mjs';

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

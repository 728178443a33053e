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

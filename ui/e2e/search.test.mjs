// Finding a story in a real browser against a real copydesk-server: words
// with a snippet that marks them, and filters by type, status, author, tag
// and day of change (a day on the journalist's clock) that the service
// applies (so paging stays right).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shot, signedIn, startServer } from './support.mjs';

let srv;
let browser;
let admin;

before(async () => {
  srv = await startServer();
  admin = srv.key('Ada Admin', ['admin']);
  const [cleo] = await srv.call(admin, 'POST', '/v3/author', { name: 'Cleo Courts' });
  const [harbour] = await srv.call(admin, 'POST', '/v3/tag', { name: 'Harbour' });
  const story = (title, extra) => srv.call(admin, 'POST', '/v3/content', { type: 'article', ...extra, title });
  await story('Dock workers walk out', {
    content: '<p>The union said on Monday that the strike at the harbour would last until the talks resume.</p>',
    authors: [cleo.uuid],
    tags: [harbour.uuid],
  });
  await story('Strike ends', { content: '<p>Work resumed at the harbour.</p>', published_at: '2026-01-05 08:00:00' });
  await story('Budget vote', { content: '<p>The council voted on fees.</p>', authors: [cleo.uuid] });
  await story('Harbour pictures', { type: 'media', content: '<p>Cranes at dawn.</p>', tags: [harbour.uuid] });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  srv?.stop();
});

/** The titles the list shows once it settles on `count` rows. */
async function titles(page, count) {
  await page.waitForFunction((n) => document.querySelectorAll('table.list tbody tr').length === n, count);
  return (await page.locator('table.list tbody tr td:first-child a').allInnerTexts()).sort();
}

describe('search', () => {
  it('marks the words where they matched and filters on the service', async () => {
    const { context, page } = await signedIn(browser, srv, admin);
    await page.getByRole('searchbox', { name: 'Search' }).fill('strike harbour');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    assert.deepEqual(await titles(page, 2), ['Dock workers walk out', 'Strike ends']);
    const row = page.getByRole('row', { name: /Dock workers walk out/ });
    assert.deepEqual((await row.locator('mark').allInnerTexts()).map((w) => w.toLowerCase()).sort(), ['harbour', 'strike']);
    // Published only.
    await page.locator('select[name=status]').selectOption('published');
    assert.deepEqual(await titles(page, 1), ['Strike ends']);
    await page.locator('select[name=status]').selectOption('');
    // By author, picked by typing part of the name.
    await page.getByRole('searchbox', { name: 'By author' }).fill('cleo');
    await page.getByRole('list', { name: 'By author: matches' }).getByRole('button', { name: 'Cleo Courts' }).click();
    assert.deepEqual(await titles(page, 1), ['Dock workers walk out']);
    await shot(page, 'search-filters');
    await page.getByRole('button', { name: 'Author: Cleo Courts (remove)' }).click();
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    // By tag and type.
    await page.getByRole('searchbox', { name: 'With tag' }).fill('harb');
    await page.getByRole('list', { name: 'With tag: matches' }).getByRole('button', { name: 'Harbour' }).click();
    assert.deepEqual(await titles(page, 2), ['Dock workers walk out', 'Harbour pictures']);
    await page.locator('select[name=type]').selectOption('media');
    assert.deepEqual(await titles(page, 1), ['Harbour pictures']);
    // Changed on a day long gone: nothing.
    await page.locator('input[name=changed_to]').fill('2001-01-01');
    await page.getByText('Nothing here yet.').waitFor();
    await context.close();
  });

  it("filters by days on the journalist's clock and shows the time on it", async () => {
    // A zone where today is not UTC's today: twelve hours behind before noon
    // UTC, fourteen ahead after it (POSIX names the offsets the other way).
    const now = new Date();
    const behind = now.getUTCHours() < 12;
    const timezoneId = behind ? 'Etc/GMT+12' : 'Etc/GMT-14';
    const localDay = new Date(now.getTime() + (behind ? -12 : 14) * 3600e3).toISOString().slice(0, 10);
    const utcDay = now.toISOString().slice(0, 10);
    assert.notEqual(localDay, utcDay);
    const { context, page } = await signedIn(browser, srv, admin, { timezoneId, locale: 'en-GB' });
    const every = ['Budget vote', 'Dock workers walk out', 'Harbour pictures', 'Strike ends'];
    assert.deepEqual(await titles(page, 4), every);
    // The time of the change on the journalist's clock; UTC's in its title.
    const changed = page.getByRole('row', { name: /Budget vote/ }).locator('time');
    const shown = await changed.innerText();
    const title = await changed.getAttribute('title');
    assert.match(title ?? '', new RegExp(`^${utcDay} \\d\\d:\\d\\d:\\d\\d UTC$`));
    assert.match(shown, /^\d\d:\d\d$/, 'changed today: the time alone, on a 24-hour clock');
    const utcHour = Number(title.slice(11, 13));
    assert.equal(Number(shown.slice(0, 2)), (utcHour + (behind ? -12 : 14) + 24) % 24, 'the hour is the local one');
    // Changed today, as the journalist's calendar says: every story.
    await page.locator('input[name=changed_from]').fill(localDay);
    await page.locator('input[name=changed_to]').fill(localDay);
    assert.deepEqual(await titles(page, 4), every);
    // UTC's today is another day here: none.
    await page.locator('input[name=changed_from]').fill(utcDay);
    await page.locator('input[name=changed_to]').fill(utcDay);
    await page.getByText('Nothing here yet.').waitFor();
    await context.close();
  });
});

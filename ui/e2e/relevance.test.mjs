// The story a journalist means on the first page, in a real browser against
// a real copydesk-server: over an archive where "harbour" is in the body of
// 300 newer stories and in the headline of one old one, a search puts the
// headline first by best match (the order it shows), and the newest first
// when asked.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shot, signedIn, startServer } from './support.mjs';

const BODY_MATCHES = 300;

let srv;
let browser;
let admin;

before(async () => {
  srv = await startServer();
  admin = srv.key('Ada Admin', ['admin']);
  const story = (title, content) => srv.call(admin, 'POST', '/v3/content', { type: 'article', title, content });
  await story('Harbour reopens after the storm', '<p>Boats are back at the quay.</p>');
  for (let n = 1; n <= BODY_MATCHES; n++) {
    await story(`Council notes ${n}`, `<p>The fees at the harbour rise again, item ${n}.</p>`);
  }
  await story('Weather', '<p>Rain all week.</p>');
  browser = await launch();
});

after(async () => {
  await browser?.close();
  srv?.stop();
});

/** The titles of the list's rows once its first row is `first`. */
async function rowsStartingWith(page, first) {
  await page.waitForFunction(
    (title) => document.querySelector('table.list tbody tr td:first-child a')?.textContent === title,
    first,
  );
  return page.locator('table.list tbody tr td:first-child a').allInnerTexts();
}

describe('search order', () => {
  it('puts the headline match first by best match, and the newest first when asked', async () => {
    const { context, page } = await signedIn(browser, srv, admin);
    await page.getByRole('searchbox', { name: 'Search' }).fill('harbour');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const best = await rowsStartingWith(page, 'Harbour reopens after the storm');
    assert.equal(best.length, 20);
    const order = page.locator('select[name=order]');
    assert.equal(await order.inputValue(), 'relevance');
    assert.equal(await order.locator('option:checked').innerText(), 'Best match', 'the list says the order it uses');
    await page.getByText(`(${BODY_MATCHES + 1} items)`).waitFor();
    await shot(page, 'search-best-match');

    await order.selectOption('newest');
    const newest = await rowsStartingWith(page, `Council notes ${BODY_MATCHES}`);
    assert.ok(!newest.includes('Harbour reopens after the storm'), 'the old headline match is not among the newest');
    assert.deepEqual(newest.slice(0, 3), [300, 299, 298].map((n) => `Council notes ${n}`));

    // Without words, no order to choose: the last change first.
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await rowsStartingWith(page, 'Weather');
    assert.equal(await page.locator('select[name=order]').count(), 0);
    await context.close();
  });
});

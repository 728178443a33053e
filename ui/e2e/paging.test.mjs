// The content list's pages in a real browser against a real copydesk-server:
// 120 stories, paged through to the last page and back, each page showing
// its own stories under the page indicator that names it.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shot, signedIn, startServer } from './support.mjs';

const STORIES = 120;
const PER_PAGE = 20;
const PAGES = STORIES / PER_PAGE;

let srv;
let browser;
let admin;

before(async () => {
  srv = await startServer();
  admin = srv.key('Ada Admin', ['admin']);
  for (let n = 1; n <= STORIES; n++) {
    await srv.call(admin, 'POST', '/v3/content', { title: `Story ${String(n).padStart(3, '0')}`, type: 'article' });
  }
  browser = await launch();
});

after(async () => {
  await browser?.close();
  srv?.stop();
});

/** The titles page `n` shows: the newest first, 20 a page. */
function titlesOfPage(n) {
  const newest = STORIES - (n - 1) * PER_PAGE;
  return Array.from({ length: PER_PAGE }, (_, i) => `Story ${String(newest - i).padStart(3, '0')}`);
}

/**
 * Starts watching the list: resolves, at the first change of the page that
 * makes the indicator say `indicator`, with the titles the table shows at
 * that very moment (so an indicator ahead of its rows is caught).
 */
async function watchFor(page, indicator) {
  await page.evaluate((expected) => {
    window.shownPage = new Promise((resolve, reject) => {
      const main = document.querySelector('main');
      const observer = new MutationObserver(() => {
        const said = main.querySelector('nav[aria-label="Pages"] span')?.textContent;
        if (said !== expected) return;
        observer.disconnect();
        clearTimeout(timer);
        resolve([...main.querySelectorAll('table.list tbody tr td:first-child')].map((cell) => cell.textContent));
      });
      const timer = setTimeout(() => {
        observer.disconnect();
        reject(new Error(`the page indicator never said "${expected}"`));
      }, 10000);
      observer.observe(main, { subtree: true, childList: true, characterData: true });
    });
  }, indicator);
}

const indicatorOf = (n) => `Page ${n} of ${PAGES} (${STORIES} items)`;

/** Clicks `button` and answers the titles shown when the indicator names page `n`. */
async function turnTo(page, button, n) {
  await watchFor(page, indicatorOf(n));
  await page.getByRole('button', { name: button }).click();
  return page.evaluate(() => window.shownPage);
}

describe('the content list', () => {
  it('pages through 120 stories to the last page and back, each page showing its own', async () => {
    const { context, page } = await signedIn(browser, srv, admin);
    const pages = page.getByRole('navigation', { name: 'Pages' });
    await pages.getByText(indicatorOf(1)).waitFor();
    const seen = new Map();
    const forward = [await page.locator('table.list tbody tr td:first-child').allInnerTexts()];
    assert.equal(await pages.getByRole('button', { name: 'Previous page' }).isDisabled(), true, 'no page before the first');

    for (let n = 2; n <= PAGES; n++) forward.push(await turnTo(page, 'Next page', n));
    forward.forEach((titles, i) => {
      assert.deepEqual(titles, titlesOfPage(i + 1), `page ${i + 1} shows its own stories`);
      for (const title of titles) seen.set(title, (seen.get(title) ?? 0) + 1);
    });
    assert.equal(seen.size, STORIES, 'every story is on some page');
    assert.deepEqual([...new Set(seen.values())], [1], 'and on one page only');
    assert.equal(await pages.getByRole('button', { name: 'Next page' }).isDisabled(), true, 'no page after the last');
    await shot(page, 'content-last-page');

    for (let n = PAGES - 1; n >= 1; n--) {
      assert.deepEqual(await turnTo(page, 'Previous page', n), forward[n - 1], `page ${n} again on the way back`);
    }
    assert.equal(await pages.getByRole('button', { name: 'Previous page' }).isDisabled(), true);
    assert.equal(await pages.getByRole('button', { name: 'Next page' }).isDisabled(), false);
    await context.close();
  });

  it('jumps to a page by its number', async () => {
    const { context, page } = await signedIn(browser, srv, admin);
    const pages = page.getByRole('navigation', { name: 'Pages' });
    await pages.getByText(indicatorOf(1)).waitFor();
    await watchFor(page, indicatorOf(5));
    await pages.getByRole('spinbutton', { name: 'Page number' }).fill('5');
    await pages.getByRole('button', { name: 'Go' }).click();
    assert.deepEqual(await page.evaluate(() => window.shownPage), titlesOfPage(5));
    await context.close();
  });
});

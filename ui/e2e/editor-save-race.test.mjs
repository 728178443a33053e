// Words typed while "Save as new version" is on its way, in a real browser
// against a real copydesk-server whose answer to the save is held back a
// moment: they are newer than the version, and they are kept and saved.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aDesk, one, signedIn } from './support.mjs';

const desk = aDesk();

describe('saving while typing', () => {
  it('keeps and saves what was typed while a version was being saved', async () => {
    const { srv, admin, browser } = desk;
    const made = await srv.call(admin, 'POST', '/v3/content', { title: 'Night ferry', type: 'article', content: '<p>The ferry sails.</p>' });
    const story = one(made);
    const { context, page } = await signedIn(browser, srv, admin);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    const body = page.getByRole('textbox', { name: 'Body' });
    await body.click();
    await page.keyboard.press('End');
    await page.keyboard.type(' At nine.');
    // The version's answer is held back, as a slow network would.
    await page.route(`**/v3/content/${story.uuid}`, async (route) => {
      if (route.request().method() !== 'PUT') return route.continue();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await body.click();
    await page.keyboard.press('End');
    await page.keyboard.type(' Late again.');
    await page.locator('.story-meta', { hasText: /version 2/ }).waitFor();
    // The words typed during the save are on the page after it, and reach the server.
    await page.getByRole('textbox', { name: 'Body' }).getByText(/Late again\./).waitFor();
    let drafts = [];
    for (let i = 0; i < 30 && !/Late again\./.test(drafts[0]?.content ?? ''); i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      drafts = await srv.call(admin, 'GET', `/v3/draft?content=${encodeURIComponent(story.srn)}`);
    }
    assert.match(drafts[0]?.content ?? '', /The ferry sails\. At nine\. Late again\./);
    const saved = await srv.call(admin, 'GET', `/v3/content/${story.uuid}`);
    assert.match(one(saved).content, /At nine\./, 'the version holds what was typed before it');
    await context.close();
  });
});

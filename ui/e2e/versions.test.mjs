// The versions screen compares a story's authors and tags, not only its
// text, in a real browser against a real copydesk-server: between version 1
// and the story now it names the tag added and the author removed, and
// restoring version 1 brings its byline and tags back.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aDesk, one, shot, signedIn } from './support.mjs';

const desk = aDesk();

describe('the versions screen', () => {
  it('shows a tag added and an author removed between two versions, and restores them', async () => {
    const { srv, admin, browser } = desk;
    const ann = one(await srv.call(admin, 'POST', '/v3/author', { name: 'Ann Byline' }));
    const bob = one(await srv.call(admin, 'POST', '/v3/author', { name: 'Bob Byline' }));
    const port = one(await srv.call(admin, 'POST', '/v3/tag', { name: 'Port' }));
    const strike = one(await srv.call(admin, 'POST', '/v3/tag', { name: 'Strike' }));
    const story = one(
      await srv.call(admin, 'POST', '/v3/content', {
        title: 'Dockers walk out',
        type: 'article',
        content: '<p>The dockers walked out at dawn.</p>',
        authors: [ann.uuid, bob.uuid],
        tags: [port.uuid],
      }),
    );
    // Version 2: Bob leaves the byline and the story is tagged Strike.
    await srv.call(admin, 'PUT', `/v3/content/${story.uuid}`, { authors: [ann.uuid], tags: [port.uuid, strike.uuid] });

    const { context, page } = await signedIn(browser, srv, admin);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    await page.locator('.story-meta', { hasText: /version 2/ }).waitFor();
    await page.getByRole('button', { name: /^Version 1 ·/ }).click();
    const diff = page.getByLabel('Changes from version 1 to the current text');
    const tags = diff.getByRole('region', { name: 'Tags: changes' });
    const authors = diff.getByRole('region', { name: 'Authors: changes' });
    const line = (region, start) => region.locator('p', { hasText: new RegExp(`^${start}:`) });
    assert.equal(await line(tags, 'Added').innerText(), 'Added: Strike');
    assert.equal(await line(tags, 'Removed').count(), 0, 'no tag was removed');
    assert.equal(await line(authors, 'Removed').innerText(), 'Removed: Bob Byline');
    assert.equal(await line(authors, 'Added').count(), 0, 'no author was added');
    assert.equal(await tags.locator('ins').innerText(), 'Strike');
    assert.equal(await authors.locator('del').innerText(), 'Bob Byline');
    assert.equal(await diff.getByRole('heading', { name: 'Body' }).count(), 0, 'the body did not change');
    await shot(page, 'versions-links');

    // Restoring version 1 brings back what it shows: Bob, and no Strike.
    await diff.getByRole('button', { name: 'Restore version 1' }).click();
    await page.locator('.story-meta', { hasText: /version 3/ }).waitFor();
    const byline = page.getByRole('group', { name: 'Authors' });
    assert.ok(await byline.getByRole('checkbox', { name: 'Bob Byline' }).isChecked());
    const restored = one(await srv.call(admin, 'GET', `/v3/content/${story.uuid}`));
    assert.deepEqual(restored.authors.map((a) => a.name), ['Ann Byline', 'Bob Byline']);
    assert.deepEqual(restored.tags.map((t) => t.name), ['Port']);
    // Version 1 and the story now are the same again, links included.
    await page.getByRole('button', { name: /^Version 3 ·/ }).waitFor();
    const first = page.getByRole('button', { name: /^Version 1 ·/ });
    if ((await first.getAttribute('aria-expanded')) !== 'true') await first.click();
    await page.getByText('The headline, abstract and body read the same as on the page now, and the authors and tags are the same.').waitFor();
    await context.close();
  });
});

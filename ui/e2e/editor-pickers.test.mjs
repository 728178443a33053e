// The story's tags and authors picked by typing, in a real browser against a
// real copydesk-server holding 500 tags: the one wanted is found, whatever
// its place in the list.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launch, signedIn, startServer } from './support.mjs';

let srv;
let browser;
let admin;

before(async () => {
  srv = await startServer();
  admin = srv.key('Ada Admin', ['admin']);
  for (let n = 1; n <= 500; n++) {
    await srv.call(admin, 'POST', '/v3/tag', { name: `Topic ${String(n).padStart(3, '0')}` });
  }
  await srv.call(admin, 'POST', '/v3/author', { name: 'Cleo Courts' });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  srv?.stop();
});

describe('the editor pickers', () => {
  it('finds a tag among 500 and an author by typing, and saves them on the story', async () => {
    const made = await srv.call(admin, 'POST', '/v3/content', { title: 'Harbour strike', type: 'article' });
    const story = Array.isArray(made) ? made[0] : made;
    const { context, page } = await signedIn(browser, srv, admin);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    const tags = page.getByRole('group', { name: 'Tags' });
    await tags.getByRole('searchbox', { name: 'Find a tag' }).fill('topic 437');
    await tags.getByRole('list', { name: 'Find a tag: matches' }).getByRole('button', { name: 'Topic 437' }).click();
    assert.ok(await tags.getByRole('checkbox', { name: 'Topic 437' }).isChecked());
    const authors = page.getByRole('group', { name: 'Authors' });
    await authors.getByRole('searchbox', { name: 'Find an author' }).fill('cleo');
    await authors.getByRole('list', { name: 'Find an author: matches' }).getByRole('button', { name: 'Cleo Courts' }).click();
    await authors.getByRole('checkbox', { name: 'Cleo Courts' }).waitFor();
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.locator('.story-meta', { hasText: /version 2/ }).waitFor();
    const saved = await srv.call(admin, 'GET', `/v3/content/${story.uuid}`);
    const read = Array.isArray(saved) ? saved[0] : saved;
    assert.deepEqual(read.tags.map((t) => t.name), ['Topic 437']);
    assert.deepEqual(read.authors.map((a) => a.name), ['Cleo Courts']);
    await context.close();
  });
});

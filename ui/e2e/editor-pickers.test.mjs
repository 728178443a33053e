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

  it('puts the story in a container from the story, and tells a journalist which permission that takes', async () => {
    const made = await srv.call(admin, 'POST', '/v3/content', { title: 'Ferry timetable', type: 'article' });
    const story = Array.isArray(made) ? made[0] : made;
    const [front] = await srv.call(admin, 'POST', '/v3/container', { title: 'Front page', type: 'manual' });
    const { context, page } = await signedIn(browser, srv, admin);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    const panel = page.getByRole('region', { name: 'In containers' });
    await panel.getByText('This story is in no container.').waitFor();
    await panel.getByRole('searchbox', { name: 'Add to a container' }).fill('front');
    await panel.getByRole('list', { name: 'Add to a container: matches' }).getByRole('button', { name: /Front page/ }).click();
    await panel.getByText('Added the story to Front page.').waitFor();
    const [held] = await srv.call(admin, 'GET', `/v3/container/${front.uuid}`);
    assert.deepEqual(held.content.map((c) => c.uuid), [story.uuid]);
    await panel.getByRole('button', { name: 'Take out of Front page' }).click();
    await panel.getByText('This story is in no container.').waitFor();
    await context.close();

    const journalist = srv.key('Jo Reporter', ['journalist']);
    const reporter = await signedIn(browser, srv, journalist);
    await reporter.page.goto(`${srv.base}/#/content/${story.uuid}`);
    await reporter.page
      .getByRole('region', { name: 'In containers' })
      .getByText(/needs the permission “CONTAINER update”, which your role does not have/)
      .waitFor();
    await reporter.context.close();
  });
});

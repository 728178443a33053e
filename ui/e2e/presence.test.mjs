// Who else is here, in a real browser against a real copydesk-server, two
// people signed in with their own passwords: the desk sees the reporter in
// the content list and, in the story, beside the paragraph her cursor is
// in; it moves with her, her saved change reaches the desk's open story
// without a reload (merged with the desk's unsaved words when it has some),
// and she goes when she closes the story.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aDeskOf, one, shot } from './support.mjs';

const desk = aDeskOf();
const openAs = (name, uuid) => desk.openAs(name, uuid);

describe('presence', () => {
  it('the desk sees the reporter in the list and beside her paragraph', async () => {
    const story = one(
      await desk.srv.call(desk.admin, 'POST', '/v3/content', {
        title: 'Harbour',
        type: 'article',
        content: '<p>Rates rose 6% in May.</p><p>The port is shut.</p>',
      }),
    );
    // Dana on the content list.
    const dana = await openAs('Dana Desk', story.uuid);
    await dana.page.goto(`${desk.srv.base}/#/`);
    const row = dana.page.getByRole('row', { name: /Harbour/ });
    await row.waitFor();

    // Rita opens the story and clicks into the second paragraph.
    const rita = await openAs('Rita Reporter', story.uuid);
    await rita.page.getByRole('textbox', { name: 'Body' }).locator('p').nth(1).click();
    await row.getByText('Rita Reporter is editing').waitFor({ timeout: 10_000 });

    // Dana opens the story: Rita is named, and her paragraph is marked.
    await dana.page.goto(`${desk.srv.base}/#/content/${story.uuid}`);
    const body = dana.page.getByRole('textbox', { name: 'Body' });
    await body.waitFor();
    await dana.page.locator('.presence', { hasText: 'Rita Reporter is editing' }).waitFor({ timeout: 10_000 });
    const marked = body.locator('.someone-here');
    await marked.waitFor({ timeout: 10_000 });
    assert.equal(await marked.innerText(), 'The port is shut.');
    assert.equal(await marked.getAttribute('data-who'), 'Rita Reporter is editing');
    await shot(dana.page, 'presence');

    // Rita moves to the first paragraph: the mark follows her.
    await rita.page.getByRole('textbox', { name: 'Body' }).locator('p').first().click();
    await body.locator('.someone-here', { hasText: 'Rates rose 6% in May.' }).waitFor({ timeout: 10_000 });

    // Rita saves a change; Dana, with nothing unsaved, has it on her page without a reload.
    await rita.page.keyboard.press('End');
    await rita.page.keyboard.type(' Ships queue.');
    await rita.page.getByRole('button', { name: 'Save as new version' }).click();
    await rita.page.locator('.story-meta', { hasText: /· version 2$/ }).waitFor();
    await body.locator('p', { hasText: 'Rates rose 6% in May. Ships queue.' }).waitFor({ timeout: 10_000 });

    // Rita closes the story: she is gone from it.
    await rita.page.goto(`${desk.srv.base}/#/`);
    await dana.page.locator('.someone-here').waitFor({ state: 'detached', timeout: 10_000 });
    await dana.page.locator('.presence').waitFor({ state: 'detached', timeout: 10_000 });
    await rita.context.close();
    await dana.context.close();
  });

  it("the reporter's saved change reaches the desk's open story, the desk's unsaved words kept", async () => {
    const story = one(
      await desk.srv.call(desk.admin, 'POST', '/v3/content', {
        title: 'Ferry strike',
        type: 'article',
        content: '<p>The ferries stopped at noon.</p><p>Talks resume on Monday.</p>',
      }),
    );
    const rita = await openAs('Rita Reporter', story.uuid);
    const dana = await openAs('Dana Desk', story.uuid);
    const danasBody = dana.page.getByRole('textbox', { name: 'Body' });
    // Dana types into the second paragraph and does not save a version.
    await danasBody.locator('p').nth(1).click();
    await dana.page.keyboard.press('End');
    await dana.page.keyboard.type(' Unions agreed.');

    // Rita changes the first paragraph and saves version 2.
    await rita.page.getByRole('textbox', { name: 'Body' }).locator('p').first().click();
    await rita.page.keyboard.press('End');
    await rita.page.keyboard.type(' Queues formed.');
    await rita.page.getByRole('button', { name: 'Save as new version' }).click();
    await rita.page.locator('.story-meta', { hasText: /· version 2$/ }).waitFor();

    // Dana's open story has Rita's words without a reload, and still her own.
    await danasBody.locator('p', { hasText: 'The ferries stopped at noon. Queues formed.' }).waitFor({ timeout: 10_000 });
    assert.equal(await danasBody.locator('p').nth(1).innerText(), 'Talks resume on Monday. Unions agreed.');
    await dana.page.locator('.story-meta', { hasText: /· version 2$/ }).waitFor();
    await dana.page.getByText(/Someone saved version 2 while you were editing version 1: their change is in the text now/).waitFor();
    await shot(dana.page, 'merged-in-place');

    // Saving it makes version 3 with both people's words.
    await dana.page.getByRole('button', { name: 'Save as new version' }).click();
    await dana.page.locator('.story-meta', { hasText: /· version 3$/ }).waitFor();
    const saved = one(await desk.srv.call(desk.admin, 'GET', `/v3/content/${story.uuid}`));
    assert.equal(saved.content, '<p>The ferries stopped at noon. Queues formed.</p><p>Talks resume on Monday. Unions agreed.</p>');
    await rita.context.close();
    await dana.context.close();
  });
});

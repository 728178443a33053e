// Two people in one unlocked story, in a real browser against a real
// copydesk-server, each signed in with their own password: each keeps a
// draft of their own (headline, abstract and body), sees the other's
// unsaved text by name and never gets it restored as theirs; a version one
// saves is merged into the other's open story with their unsaved words,
// and where both changed the same words the writer sees both before
// anything is replaced.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aDeskOf, one, shot } from './support.mjs';

const desk = aDeskOf();
const openAs = (name, uuid) => desk.openAs(name, uuid);

/** Types `words` at the end of the body's paragraph `index` (from 0). */
async function typeInParagraph(page, index, words) {
  const body = page.getByRole('textbox', { name: 'Body' });
  await body.locator('p').nth(index).click();
  await page.keyboard.press('End');
  await page.keyboard.type(words);
}

async function draftSaved(page) {
  await page.locator('.draft-state', { hasText: 'Draft saved' }).waitFor({ timeout: 15_000 });
}

async function paragraphs(page) {
  return page.getByRole('textbox', { name: 'Body' }).locator('p').allInnerTexts();
}

describe('two writers in one story', () => {
  it('keep a draft each, see each other, and a newer version merges in instead of replacing', async () => {
    const story = one(
      await desk.srv.call(desk.admin, 'POST', '/v3/content', {
        title: 'Harbour',
        type: 'article',
        abstract: 'The port.',
        content: '<p>Rates rose 6% in May.</p><p>The port is shut.</p>',
      }),
    );
    const rita = await openAs('Rita Reporter', story.uuid);
    const dana = await openAs('Dana Desk', story.uuid);

    // Rita changes the headline, the abstract and the first paragraph.
    await rita.page.getByLabel('Title').fill('Harbour reopens');
    await rita.page.getByLabel('Abstract').fill('Ships return at dawn.');
    await typeInParagraph(rita.page, 0, ' Ships queue.');
    await draftSaved(rita.page);
    // Dana, in the same unlocked story, types in the second paragraph.
    await typeInParagraph(dana.page, 1, ' Talks resume.');
    await draftSaved(dana.page);

    // Each sees the other's unsaved text by name, and only their own text in the editor.
    await rita.page.locator('.others-unsaved', { hasText: 'Unsaved text by Dana Desk' }).waitFor({ timeout: 15_000 });
    await dana.page.locator('.others-unsaved', { hasText: 'Unsaved text by Rita Reporter' }).waitFor({ timeout: 15_000 });
    assert.deepEqual(await paragraphs(dana.page), ['Rates rose 6% in May.', 'The port is shut. Talks resume.']);
    assert.equal(await dana.page.getByLabel('Title').inputValue(), 'Harbour');
    await shot(rita.page, 'editor-two-writers');

    // Both drafts survive on the service, each with its writer's words.
    const others = await desk.srv.call(desk.admin, 'GET', `/v3/draft/others?content=${encodeURIComponent(story.srn)}`);
    const byName = Object.fromEntries(others.map((d) => [d.user.name, d]));
    assert.match(byName['Rita Reporter'].content, /Ships queue\./);
    assert.equal(byName['Rita Reporter'].fields.title, 'Harbour reopens');
    assert.equal(byName['Rita Reporter'].fields.abstract, 'Ships return at dawn.');
    assert.match(byName['Dana Desk'].content, /Talks resume\./);
    assert.doesNotMatch(byName['Dana Desk'].content, /Ships queue/);

    // Rita's headline and abstract come back in another browser of hers, from her draft.
    const ritaElsewhere = await openAs('Rita Reporter', story.uuid);
    await ritaElsewhere.page.locator('.draft-state', { hasText: 'Restored your draft' }).waitFor();
    assert.equal(await ritaElsewhere.page.getByLabel('Title').inputValue(), 'Harbour reopens');
    assert.equal(await ritaElsewhere.page.getByLabel('Abstract').inputValue(), 'Ships return at dawn.');
    assert.deepEqual(await paragraphs(ritaElsewhere.page), ['Rates rose 6% in May. Ships queue.', 'The port is shut.']);
    await ritaElsewhere.context.close();

    // Dana saves version 2: Rita's open story, with her unsaved headline,
    // abstract and words, moves onto version 2 with them merged in; her
    // save makes version 3 with both changes.
    await dana.page.getByRole('button', { name: 'Save as new version' }).click();
    await dana.page.locator('.story-meta', { hasText: /· version 2$/ }).waitFor();
    await rita.page.locator('.restored-note', { hasText: 'Someone saved version 2 while you were editing version 1' }).waitFor({ timeout: 15_000 });
    await rita.page.locator('.story-meta', { hasText: /· version 2$/ }).waitFor();
    assert.deepEqual(await paragraphs(rita.page), ['Rates rose 6% in May. Ships queue.', 'The port is shut. Talks resume.']);
    assert.equal(await rita.page.getByLabel('Title').inputValue(), 'Harbour reopens');
    await rita.page.getByRole('textbox', { name: 'Body' }).click();
    await rita.page.keyboard.press('Control+s');
    await rita.page.locator('.story-meta', { hasText: /· version 3$/ }).waitFor();
    const merged = one(await desk.srv.call(desk.admin, 'GET', `/v3/content/${story.uuid}`));
    assert.equal(merged.version, '3');
    assert.equal(merged.title, 'Harbour reopens');
    assert.equal(merged.abstract, 'Ships return at dawn.');
    assert.equal(merged.content, '<p>Rates rose 6% in May. Ships queue.</p><p>The port is shut. Talks resume.</p>');
    // Rita's text is in a version now: Dana no longer sees it as unsaved.
    await dana.page.reload();
    await dana.page.getByRole('textbox', { name: 'Body' }).waitFor();
    assert.deepEqual(await paragraphs(dana.page), ['Rates rose 6% in May. Ships queue.', 'The port is shut. Talks resume.']);
    assert.equal(await dana.page.locator('.others-unsaved').count(), 0);

    // Both change the same words: Dana saves first; Rita's save is refused
    // before anything is replaced, and she sees both wordings.
    await rita.page.reload();
    await rita.page.getByRole('textbox', { name: 'Body' }).waitFor();
    for (const [who, figure] of [
      [dana, '7%'],
      [rita, '8%'],
    ]) {
      const body = who.page.getByRole('textbox', { name: 'Body' });
      await body.locator('p').first().getByText('Rates rose 6% in May.', { exact: false }).waitFor();
      await who.page.evaluate(() => window.getSelection()?.removeAllRanges());
      await body.locator('p').first().click();
      await who.page.keyboard.press('Home');
      for (let i = 0; i < 'Rates rose '.length; i++) await who.page.keyboard.press('ArrowRight');
      await who.page.keyboard.press('Shift+ArrowRight');
      await who.page.keyboard.press('Shift+ArrowRight');
      await who.page.keyboard.type(figure);
    }
    await dana.page.getByRole('button', { name: 'Save as new version' }).click();
    await dana.page.locator('.story-meta', { hasText: /· version 4$/ }).waitFor();
    await rita.page.getByRole('button', { name: 'Save as new version' }).click();
    await rita.page.locator('.restored-note', { hasText: 'Not saved yet' }).waitFor();
    const conflicts = rita.page.getByRole('region', { name: 'Your wording where you both changed the same words' });
    await conflicts.getByText('Paragraph 1: yours was “Rates rose 8% in May. Ships queue.”', { exact: false }).waitFor();
    await rita.page.locator('.story-meta', { hasText: /· version 4$/ }).waitFor();
    assert.deepEqual((await paragraphs(rita.page))[0], 'Rates rose 7% in May. Ships queue.');
    await shot(rita.page, 'editor-save-conflict');
    const kept = one(await desk.srv.call(desk.admin, 'GET', `/v3/content/${story.uuid}`));
    assert.equal(kept.version, '4', 'nothing was replaced');
    assert.match(kept.content, /Rates rose 7% in May\./);

    await rita.context.close();
    await dana.context.close();
  });
});

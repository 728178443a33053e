// Copy editing in a real browser against a real copydesk-server, each
// person signed in with their own password: the desk suggests an
// insertion, a deletion and a bold and puts a note on words; the reporter
// accepts one, rejects one, answers the note, resolves it and saves; the page, the
// saved version, the versions' comparison, the content list's counts and
// the note's thread show the result.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { aDeskOf, artifacts, one, shot } from './support.mjs';

const desk = aDeskOf();
const openAs = (name, uuid) => desk.openAs(name, uuid, { width: 1280, height: 1000 });

/** Selects the first `words` in the body, as a mouse would. */
async function select(page, words) {
  await page.getByRole('textbox', { name: 'Body' }).click();
  await page.evaluate((wanted) => {
    const body = document.querySelector('.body-text');
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.textContent.indexOf(wanted);
      if (at === -1) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + wanted.length);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      return;
    }
    throw new Error(`no "${wanted}" in the body`);
  }, words);
  // ProseMirror reads the selection when the browser reports it.
  await page.waitForFunction((wanted) => window.getSelection()?.toString() === wanted, words);
}

async function saveVersion(page, version) {
  await page.getByRole('button', { name: 'Save as new version' }).click();
  await page.locator('.story-meta', { hasText: new RegExp(`· version ${version}$`) }).waitFor();
}

describe('suggested edits and notes', () => {
  it('the desk suggests and notes; the reporter accepts one, rejects one and answers the note', async () => {
    const story = one(
      await desk.srv.call(desk.admin, 'POST', '/v3/content', {
        title: 'Council budget',
        type: 'article',
        content: '<p>The council met on Friday to discuss the budget.</p><p>Rates rose 6% in May.</p>',
      }),
    );

    // The desk: Suggest on, then an insertion, a deletion, a bold and a note.
    const dana = await openAs('Dana Desk', story.uuid);
    const body = dana.page.getByRole('textbox', { name: 'Body' });
    await dana.page.getByRole('button', { name: 'Suggest', exact: true }).click();
    assert.equal(await dana.page.getByRole('button', { name: 'Suggest', exact: true }).getAttribute('aria-pressed'), 'true');
    await body.locator('p').first().click();
    await dana.page.keyboard.press('End');
    await dana.page.keyboard.press('ArrowLeft');
    await dana.page.keyboard.type(' again');
    await select(dana.page, 'on Friday ');
    await dana.page.keyboard.press('Backspace');
    await select(dana.page, 'budget');
    await dana.page.getByRole('button', { name: 'Bold', exact: true }).click();
    await select(dana.page, 'Rates rose 6%');
    await dana.page.getByRole('button', { name: 'Add note' }).click();
    await dana.page.getByRole('dialog').getByLabel('Note').fill('Which rates? Source for 6%?');
    await dana.page.getByRole('dialog').getByRole('button', { name: 'Add note' }).click();
    await dana.page.getByRole('dialog').waitFor({ state: 'detached' });

    // Nothing is applied: every word is still there, marked.
    assert.equal(await body.locator('p').first().innerText(), 'The council met on Friday to discuss the budget again.');
    assert.equal(await body.locator('ins[data-suggestion]').innerText(), ' again');
    assert.equal(await body.locator('del[data-suggestion]').innerText(), 'on Friday ');
    assert.equal(await body.locator('span[data-suggestion][data-style=BOLD]').innerText(), 'budget');
    assert.equal(await body.locator('strong').count(), 0);
    const review = dana.page.getByRole('region', { name: 'Suggestions and notes' });
    assert.equal(await review.getByRole('list', { name: 'Suggested edits' }).getByRole('listitem').count(), 3);
    await review.getByRole('list', { name: 'Notes' }).getByText('Which rates? Source for 6%?').waitFor();
    await shot(dana.page, 'editor-suggestions');
    // The first screen of it, for the editor guide.
    await dana.page.screenshot({ path: join(artifacts, 'suggestions.png') });
    await saveVersion(dana.page, 2);
    await dana.context.close();

    const saved = one(await desk.srv.call(desk.admin, 'GET', `/v3/content/${story.uuid}`));
    assert.match(saved.content, /<ins data-suggestion="[0-9a-f-]{36}" data-author="Dana Desk" data-at="[^"]+"> again<\/ins>/);
    const noteId = /data-notes="([0-9a-f-]{36})"/.exec(saved.content)?.[1];
    assert.ok(noteId, saved.content);

    // The reporter, as herself: accepts the insertion, rejects the deletion, answers the note.
    const rita = await openAs('Rita Reporter', story.uuid);
    const ritaReview = rita.page.getByRole('region', { name: 'Suggestions and notes' });
    await ritaReview.getByRole('button', { name: 'Accept: Insert “ again”' }).click();
    await ritaReview.getByRole('button', { name: 'Reject: Delete “on Friday ”' }).click();
    await ritaReview.getByLabel('Answer the note on “Rates rose 6%”').fill('Mortgage rates; the central bank, 2 June.');
    await ritaReview.getByRole('button', { name: 'Answer' }).click();
    await ritaReview.getByText('Mortgage rates; the central bank, 2 June.').waitFor();
    // Answered, the note is resolved: it leaves the page and stays on its words, listed as resolved.
    await ritaReview.getByRole('button', { name: 'Resolve' }).click();
    await ritaReview.getByText('Resolved notes (1)').waitFor();
    const ritaBody = rita.page.getByRole('textbox', { name: 'Body' });
    assert.equal(await ritaBody.locator('ins, del').count(), 0);
    assert.equal(await ritaBody.locator('p').first().innerText(), 'The council met on Friday to discuss the budget again.');
    // The bold still waits; one suggestion is left in the list.
    assert.equal(await ritaReview.getByRole('list', { name: 'Suggested edits' }).getByRole('listitem').count(), 1);
    await shot(rita.page, 'editor-suggestions-settled');
    await saveVersion(rita.page, 3);

    const settled = one(await desk.srv.call(desk.admin, 'GET', `/v3/content/${story.uuid}`));
    assert.equal(settled.version, '3');
    assert.match(
      settled.content,
      /^<p>The council met on Friday to discuss the <span data-suggestion="[0-9a-f-]{36}" data-style="BOLD" data-on="true" data-author="Dana Desk" data-at="[^"]+">budget<\/span> again\.<\/p><p><span data-resolved-notes="[0-9a-f-]{36}">Rates rose 6%<\/span> in May\.<\/p>$/,
    );
    const thread = await desk.srv.call(desk.admin, 'GET', `/v3/note-comment/${noteId}`);
    assert.deepEqual(
      thread.items.map((c) => [c.user.name, c.comment]),
      [
        ['Dana Desk', '<p>Which rates? Source for 6%?</p>'],
        ['Rita Reporter', '<p>Mortgage rates; the central bank, 2 June.</p>'],
      ],
    );
    // The versions show what was settled since the desk's version.
    await rita.page.getByRole('button', { name: /^Version 2 · saved/ }).click();
    const since = rita.page.getByRole('region', { name: 'Suggested edits and notes: changes' });
    assert.deepEqual(await since.getByRole('listitem').allInnerTexts(), [
      'Delete “on Friday ” by Dana Desk: pending in version 2, accepted or rejected since.',
      'Insert “ again” by Dana Desk: pending in version 2, accepted or rejected since.',
      'Note on “Rates rose 6%”: resolved since version 2.',
    ]);
    // The content list counts what is left open: the bold.
    await rita.page.goto(`${desk.srv.base}/#/`);
    await rita.page.getByRole('row', { name: /Council budget/ }).getByText('1 suggested edit', { exact: true }).waitFor();
    await rita.page.goto(`${desk.srv.base}/#/content/${story.uuid}`);
    // The page after a reload shows the saved version.
    await rita.page.reload();
    await ritaBody.waitFor();
    assert.equal(await ritaBody.locator('p').first().innerText(), 'The council met on Friday to discuss the budget again.');
    assert.equal(await ritaBody.locator('[data-notes]').count(), 0);
    assert.equal(await ritaBody.locator('[data-resolved-notes]').innerText(), 'Rates rose 6%');
    const notes = await desk.srv.call(desk.admin, 'GET', `/v3/content/${story.uuid}/notes`);
    assert.deepEqual(
      notes.items.map((n) => [n.uuid, n.words, n.state]),
      [[noteId, 'Rates rose 6%', 'resolved']],
    );
    await rita.context.close();
  });
});

// A person whose role lacks an access action is told which one, in the same
// words wherever its control would be, instead of meeting a control that is
// missing or greyed out without a reason. A reporter (journalist: no
// publishing, no print locks, no export writes) and a reader (no changes at
// all) are signed in against a real server and read what each screen says.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aDesk, one, shot, signedIn } from './support.mjs';

const desk = aDesk();

/** The words shown for a missing action: what it is for, and the action by its name. */
function needs(doing, action) {
  return `${doing} needs the permission “${action}”, which your role does not have. Ask an editor or an administrator.`;
}

/** The texts of every missing-permission note on the page (or in `scope`). */
async function notes(scope) {
  return scope.locator('.missing-permission').allInnerTexts();
}

/** A story with two versions and a comment, made by the admin. */
async function aStory(title) {
  const story = one(await desk.srv.call(desk.admin, 'POST', '/v3/content', { title, type: 'article', content: '<p>First words.</p>' }));
  await desk.srv.call(desk.admin, 'PUT', `/v3/content/${story.uuid}`, { content: '<p>First words, then more.</p>' });
  await desk.srv.call(desk.admin, 'POST', '/v3/note-comment/root', { comment: '<p>Check the figures.</p>', reference: story.uuid });
  return story;
}

describe('what a role may not do is said, with the permission it needs', () => {
  it('tells a reporter about publishing, print-document locks and the export', async () => {
    const story = await aStory('Harbour plan approved');
    const free = one(await desk.srv.call(desk.admin, 'POST', '/v3/print-document', { label: 'Page three', tracking_label: 'friday/p03.indd' }));
    const held = one(await desk.srv.call(desk.admin, 'POST', '/v3/print-document', { label: 'Page four', tracking_label: 'friday/p04.indd' }));
    await desk.srv.call(desk.admin, 'POST', `/v3/print-document/${held.uuid}/lock`, {});
    assert.ok(free.uuid);
    const reporter = desk.srv.key('Rita Reporter', ['journalist']);
    const { context, page } = await signedIn(desk.browser, desk.srv, reporter);

    // The editor: no Published box, and why.
    await page.goto(`${desk.srv.base}/#/content/${story.uuid}`);
    await page.getByRole('textbox', { name: 'Body' }).waitFor();
    await page.getByText(needs('Publishing (or taking a story off the web)', 'CONTENT publish')).waitFor();
    assert.equal(await page.getByRole('checkbox', { name: 'Published' }).count(), 0);
    // What the reporter may do is not explained away.
    const editorNotes = await notes(page.locator('article'));
    assert.ok(!editorNotes.some((n) => /CONTENT update|VERSION restore/.test(n)), editorNotes.join('\n'));
    await shot(page, 'permissions-editor-reporter');

    // The print desk: locks, pass-through locks and new documents.
    await page.getByRole('link', { name: 'Print desk' }).click();
    const freeRow = page.getByRole('row', { name: /Page three/ });
    await freeRow.getByText(needs('Locking Page three', 'PRINTDOCUMENT update')).waitFor();
    assert.equal(await freeRow.getByRole('button').count(), 0, 'no lock button to press');
    const heldRow = page.getByRole('row', { name: /Page four/ });
    await heldRow.getByText(needs('Unlocking Page four while someone else has it out', 'PRINTDOCUMENT passThruLock')).waitFor();
    assert.equal(await heldRow.getByRole('button').count(), 0, 'no force unlock to press');
    await page.getByText(needs('Locking a document on behalf of someone else', 'PRINTDOCUMENT passThruLock')).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Lock for them' }).count(), 0);
    await page.getByText(needs('Tracking a new print document', 'PRINTDOCUMENT create')).waitFor();

    // The export: push, pull, the print notice (export lock) and saving each say so; downloading is allowed.
    const panel = page.getByRole('region', { name: 'Export a story to print' });
    await panel.getByRole('searchbox', { name: 'Story' }).fill('harbour plan');
    await panel.getByRole('list', { name: 'Story: matches' }).getByRole('button', { name: /Harbour plan approved/ }).click();
    await panel.getByText('Picked: Harbour plan approved').waitFor();
    await panel.getByText('Nobody has said they work on this story in print.').waitFor();
    assert.deepEqual(await notes(panel), [
      needs('Writing and saving the export', 'EXPORT update'),
      needs('Pushing the export to the web', 'EXPORT push'),
      needs('Pulling the web text into the export', 'EXPORT pull'),
      needs('Saying who works on a story in print (the export lock)', 'EXPORT lock'),
    ]);
    for (const name of ['Save the export', 'Push to the web', 'Pull from the web', 'Say I work on it in print']) {
      assert.equal(await panel.getByRole('button', { name }).count(), 0, name);
    }
    await panel.getByRole('button', { name: 'Download ICML' }).waitFor();
    await shot(page, 'permissions-print-desk-reporter');
    await context.close();
  });

  it('tells a reader about changing the story, comments, restoring a version and new stories', async () => {
    const story = await aStory('Bridge repairs delayed');
    const reader = desk.srv.key('Rob Reader', ['reader']);
    const { context, page } = await signedIn(desk.browser, desk.srv, reader);
    await page.getByText(needs('Starting a new story', 'CONTENT create')).waitFor();

    await page.goto(`${desk.srv.base}/#/content/${story.uuid}`);
    await page.getByRole('textbox', { name: 'Body' }).waitFor();
    await page.getByText(needs('Changing this story', 'CONTENT update')).waitFor();
    assert.ok(await page.getByRole('button', { name: 'Save as new version' }).isDisabled());

    // Comments: no form and no Reply, and one note saying why.
    const comments = page.getByRole('complementary', { name: 'Notes and comments' });
    await comments.getByText('Check the figures.').waitFor();
    assert.deepEqual(await notes(comments), [needs('Commenting (or replying to a comment)', 'NOTECOMMENT create')]);
    assert.equal(await comments.getByRole('button', { name: 'Reply' }).count(), 0);
    assert.equal(await comments.getByRole('button', { name: 'Post' }).count(), 0);

    // Versions: the diff opens; the restore says what it needs.
    await page.getByRole('button', { name: /^Version 1 ·/ }).click();
    await page.getByText(needs('Restoring version 1', 'VERSION restore')).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Restore version 1' }).count(), 0);
    await page.getByText(needs('Changing the lead photo', 'CONTENT update')).waitFor();
    await shot(page, 'permissions-editor-reader');
    await context.close();
  });
});

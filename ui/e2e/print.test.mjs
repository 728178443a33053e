// The print desk at a newsroom's size, in a real browser against a real
// copydesk-server: a story found among hundreds by typing, its export
// downloaded under the story's own name, and a lock that says since when.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shot, signedIn, startServer } from './support.mjs';

const STORIES = 250;

let srv;
let browser;
let admin;
/** The story the print desk looks for. */
let story;

before(async () => {
  srv = await startServer();
  admin = srv.key('Ada Admin', ['admin']);
  for (let n = 1; n <= STORIES; n++) {
    const made = await srv.call(admin, 'POST', '/v3/content', {
      title: n === 37 ? 'Tuition rises again' : `Filler story ${n}`,
      type: 'article',
      content: '<p>Fees rise.</p>',
    });
    if (n === 37) story = Array.isArray(made) ? made[0] : made;
  }
  browser = await launch();
});

after(async () => {
  await browser?.close();
  srv?.stop();
});

describe('the print desk', () => {
  it('finds a story among hundreds by typing and downloads its export under its own name', async () => {
    const { context, page } = await signedIn(browser, srv, admin);
    await page.getByRole('link', { name: 'Print desk' }).click();
    const panel = page.getByRole('region', { name: 'Export a story to print' });
    // The story is far past the newest hundred: only a search finds it.
    await panel.getByRole('searchbox', { name: 'Story' }).fill('tuition');
    const matches = panel.getByRole('list', { name: 'Story: matches' });
    await matches.getByRole('button', { name: /Tuition rises again/ }).click();
    await panel.getByText('Picked: Tuition rises again').waitFor();
    // The print text is written in the rich editor, not as HTML in a box.
    const printText = panel.getByRole('textbox', { name: 'Export content' });
    await printText.click();
    await page.keyboard.type('Fees rise for the third year.');
    await page.keyboard.press('Control+b');
    await page.keyboard.type(' Again.');
    await panel.getByRole('button', { name: 'Save the export' }).click();
    await panel.getByText('Saved the export.').waitFor();
    const exported = await srv.call(admin, 'GET', `/v3/export/${story.uuid}`);
    const side = (Array.isArray(exported) ? exported[0] : exported).export;
    assert.match(side.content, /<p>Fees rise for the third year\.<strong> Again\.<\/strong><\/p>/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      panel.getByRole('button', { name: 'Download ICML' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'tuition-rises-again.icml');
    const [text] = await Promise.all([
      page.waitForEvent('download'),
      panel.getByRole('button', { name: 'Download TEXT' }).click(),
    ]);
    assert.equal(text.suggestedFilename(), 'tuition-rises-again.txt');
    await shot(page, 'print-desk-export');
    await context.close();
  });

  it('shows a tracking label as typed, and since when a print document is out', async () => {
    const doc = await srv.call(admin, 'POST', '/v3/print-document', { label: 'Front page', tracking_label: 'tuesday/front.indd' });
    const holder = srv.key('Gil Desk', ['printdesk']);
    await srv.call(holder, 'POST', `/v3/print-document/${doc[0].uuid}/lock`, {});
    const { context, page } = await signedIn(browser, srv, admin);
    await page.getByRole('link', { name: 'Print desk' }).click();
    const row = page.getByRole('row', { name: /Front page/ });
    // The holder's name comes with the desk's list of people, which may land after the row.
    await row.getByRole('cell', { name: /^Gil Desk since / }).waitFor();
    assert.match(await row.innerText(), /Gil Desk since \w+/);
    assert.match(await row.innerText(), /tuesday\/front\.indd/, 'the tracking label as typed');
    await shot(page, 'print-desk-document-out');
    await context.close();
  });
});

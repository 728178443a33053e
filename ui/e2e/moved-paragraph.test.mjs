// A paragraph the desk moves while the laptop edits it, in real browsers on
// two real copydesk-servers (the newsroom's and the laptop's replica) and a
// real sync between them: the story shows that paragraph once, edited, at
// its new place, on both. Once for a story whose raw content has Draft.js
// block keys (the desk's cut and paste takes the key along, so the merge
// knows the paragraph by its key), once for a story stored as HTML alone
// (each editor makes keys of its own, and the merge finds it by its words).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launch, one, shot, signedIn, startServer, syncOnce } from './support.mjs';

let central;
let replica;
let browser;

before(async () => {
  central = await startServer();
  replica = await startServer();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  replica?.stop();
  central?.stop();
});

const PARAGRAPHS = [
  'The council met on Monday night.',
  'Fees rise by five percent next year.',
  'Students plan a protest at the town hall.',
  'The vote is due in March.',
];
const EDITED = 'Students plan a march at the town hall.';
const KEYS = ['c0unc', 'f33s0', 'stud3', 'v0te0'];

const html = (texts) => texts.map((t) => `<p>${t}</p>`).join('');
const raw = (texts, keys) =>
  JSON.stringify({
    blocks: texts.map((text, i) => ({ key: keys[i], text, type: 'unstyled', depth: 0, inlineStyleRanges: [], entityRanges: [], data: {} })),
    entityMap: {},
  });

/** The body's paragraphs as the editor shows them. */
async function paragraphs(page) {
  return page.getByRole('textbox', { name: 'Body' }).locator('p').allInnerTexts();
}

/** The story `uuid` open in the editor, its body showing `first` as its first paragraph. */
async function openStory(page, srv, uuid, first) {
  await page.goto(`${srv.base}/#/content/${uuid}`);
  const body = page.getByRole('textbox', { name: 'Body' });
  await body.locator('p').first().getByText(first, { exact: true }).waitFor();
  return body;
}

/** Puts the caret at the start of the body's paragraph holding `text`. */
async function caretAtStartOf(page, text) {
  const body = page.getByRole('textbox', { name: 'Body' });
  await page.evaluate(() => window.getSelection()?.removeAllRanges());
  await body.locator('p', { hasText: text }).click();
  await page.keyboard.press('Home');
}

/**
 * Lets the editor take in a caret or a selection the keyboard moved:
 * ProseMirror reads it from the `selectionchange` event that follows, and
 * cuts and pastes where it has it.
 */
async function settled(page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
}

async function saveVersion(page, version) {
  await page.getByRole('button', { name: 'Save as new version' }).click();
  await page.locator('.story-meta', { hasText: new RegExp(`· version ${version}$`) }).waitFor({ timeout: 15_000 });
}

/** The story's blocks as the service's raw content holds them: [key, text]. */
const blocksOf = (item) => JSON.parse(item.content_raw).blocks.map((b) => [b.key, b.text]);

for (const keyed of [true, false]) {
  describe(`a paragraph moved by the desk and edited on the laptop (${keyed ? 'a story with Draft.js block keys' : 'a story stored as HTML alone'})`, () => {
    it('shows once, edited, at its new place, on the newsroom server and on the laptop', async () => {
      const tag = keyed ? 'keyed' : 'html';
      const desk = central.key(`Desk ${tag}`, ['admin']);
      const laptop = central.key(`Laptop ${tag}`, ['editor']);
      const me = replica.key(`Me ${tag}`, ['admin']);
      const story = one(
        await central.call(desk, 'POST', '/v3/content', {
          title: `Fees ${tag}`,
          type: 'article',
          content: html(PARAGRAPHS),
          ...(keyed ? { content_raw: raw(PARAGRAPHS, KEYS) } : {}),
        }),
      );
      syncOnce(replica.dir, central.base, laptop);
      assert.equal(one(await replica.call(me, 'GET', `/v3/content/${story.uuid}`)).content, html(PARAGRAPHS));

      // The desk, on the newsroom server, moves the third paragraph to the top
      // with the keyboard: select it with its break, cut, go to the start, paste.
      const atDesk = await signedIn(browser, central, desk);
      await openStory(atDesk.page, central, story.uuid, PARAGRAPHS[0]);
      await caretAtStartOf(atDesk.page, PARAGRAPHS[2]);
      await atDesk.page.keyboard.press('Shift+End');
      await atDesk.page.keyboard.press('Shift+ArrowRight');
      await settled(atDesk.page);
      await atDesk.page.keyboard.press('Control+x');
      assert.deepEqual(await paragraphs(atDesk.page), [PARAGRAPHS[0], PARAGRAPHS[1], PARAGRAPHS[3]]);
      await atDesk.page.keyboard.press('Control+Home');
      await settled(atDesk.page);
      await atDesk.page.keyboard.press('Control+v');
      const moved = [PARAGRAPHS[2], PARAGRAPHS[0], PARAGRAPHS[1], PARAGRAPHS[3]];
      assert.deepEqual(await paragraphs(atDesk.page), moved);
      await saveVersion(atDesk.page, 2);
      const deskSaved = one(await central.call(desk, 'GET', `/v3/content/${story.uuid}`));
      assert.equal(deskSaved.content, html(moved));
      const deskKeys = blocksOf(deskSaved);
      assert.deepEqual(
        deskKeys.map(([, text]) => text),
        moved,
      );
      assert.equal(new Set(deskKeys.map(([key]) => key)).size, 4, 'every block has a key of its own');
      // The moved paragraph took its key along; the others kept theirs.
      if (keyed) assert.deepEqual(deskKeys.map(([key]) => key), [KEYS[2], KEYS[0], KEYS[1], KEYS[3]]);

      // The laptop, on its replica, changes a word in that paragraph where it still stands.
      const onLaptop = await signedIn(browser, replica, me);
      await openStory(onLaptop.page, replica, story.uuid, PARAGRAPHS[0]);
      await caretAtStartOf(onLaptop.page, PARAGRAPHS[2]);
      for (let i = 0; i < 'Students plan a '.length; i++) await onLaptop.page.keyboard.press('ArrowRight');
      for (let i = 0; i < 'protest'.length; i++) await onLaptop.page.keyboard.press('Shift+ArrowRight');
      await onLaptop.page.keyboard.type('march');
      const edited = [PARAGRAPHS[0], PARAGRAPHS[1], EDITED, PARAGRAPHS[3]];
      assert.deepEqual(await paragraphs(onLaptop.page), edited);
      await saveVersion(onLaptop.page, 2);
      const laptopSaved = one(await replica.call(me, 'GET', `/v3/content/${story.uuid}`));
      assert.equal(laptopSaved.content, html(edited));
      if (keyed) assert.deepEqual(blocksOf(laptopSaved), KEYS.map((key, i) => [key, edited[i]]));

      assert.match(syncOnce(replica.dir, central.base, laptop), /conflicts 0/);

      // On both servers: the paragraph once, edited, at the top; the others once, in their order.
      const merged = [EDITED, PARAGRAPHS[0], PARAGRAPHS[1], PARAGRAPHS[3]];
      for (const [where, srv, key] of [
        ['the newsroom server', central, desk],
        ['the laptop', replica, me],
      ]) {
        const item = one(await srv.call(key, 'GET', `/v3/content/${story.uuid}`));
        assert.equal(item.content, html(merged), `the body on ${where}`);
        const blocks = blocksOf(item);
        assert.deepEqual(
          blocks.map(([, text]) => text),
          merged,
          `the raw content on ${where}`,
        );
        if (keyed) assert.deepEqual(blocks.map(([k]) => k), [KEYS[2], KEYS[0], KEYS[1], KEYS[3]], `the block keys on ${where}`);
      }
      for (const [where, page, srv] of [
        ['the desk', atDesk.page, central],
        ['the laptop', onLaptop.page, replica],
      ]) {
        await page.reload();
        await openStory(page, srv, story.uuid, EDITED);
        assert.deepEqual(await paragraphs(page), merged, `the editor at ${where}`);
        const text = await page.getByRole('textbox', { name: 'Body' }).innerText();
        assert.equal(text.split('Students plan a').length - 1, 1, `the paragraph stands once at ${where}`);
        await shot(page, `moved-paragraph-${tag}-${where === 'the desk' ? 'desk' : 'laptop'}`);
      }
      await atDesk.context.close();
      await onLaptop.context.close();
    });
  });
}

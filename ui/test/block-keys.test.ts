// @vitest-environment jsdom
// Block keys in the real editor (TipTap on ProseMirror, the body's own
// extensions), driven by real transactions, key presses and clipboard
// events: a block keeps its key as it is edited and moved, a split and a
// join leave one block with it, a copy gets a key of its own, and the keys
// go into Draft.js raw content and come back from it.

import { afterEach, describe, expect, it } from 'vitest';
import { Editor } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import { TextSelection } from '@tiptap/pm/state';
import { BlockKeys, keyChanges, startingDoc } from '../src/block-keys';
import { fromRaw, toRaw, type PmNode, type RawContent } from '../src/draftjs';
import { BodyPhoto } from '../src/photo-node';

const extensions = [StarterKit.configure({ trailingNode: false }), BodyPhoto, BlockKeys];
const SRC = '/files/0f1e2d3c4b5a69788796a5b4c3d2e1f0/public.png';

const para = (text: string, blockKey?: string): PmNode => ({
  type: 'paragraph',
  ...(blockKey ? { attrs: { blockKey } } : {}),
  content: [{ type: 'text', text }],
});
const story = (): PmNode => ({
  type: 'doc',
  content: [para('Dock workers walk out.', 'dock0'), para('The port is shut.', 'port0'), para('Ships wait offshore.', 'ship0'), para('Talks resume Monday.', 'talk0')],
});

let open: Editor[] = [];
afterEach(() => {
  for (const e of open) e.destroy();
  open = [];
});

/** An editor on `content`, started as the body's editor starts. */
function editorOn(content: PmNode | string, raw?: RawContent): Editor {
  const editor = new Editor({ element: document.createElement('div'), extensions, content: startingDoc(content, extensions, raw) as never });
  open.push(editor);
  return editor;
}

/** Each block's text and key, in order. */
function blocks(editor: Editor): [string, string][] {
  const out: [string, string][] = [];
  editor.state.doc.descendants((node) => {
    if (node.isTextblock || node.type.name === 'image') {
      out.push([node.type.name === 'image' ? `[${node.attrs.alt}]` : node.textContent, node.attrs.blockKey]);
      return false;
    }
    return true;
  });
  return out;
}

/** Where `text` starts in the document (its first character's position). */
function at(editor: Editor, text: string): number {
  let found = -1;
  editor.state.doc.descendants((node, pos) => {
    if (found >= 0) return false;
    if (node.isText && node.text!.includes(text)) found = pos + node.text!.indexOf(text);
    return true;
  });
  if (found < 0) throw new Error(`no “${text}” in the document`);
  return found;
}

function select(editor: Editor, from: number, to = from) {
  editor.view.dispatch(editor.state.tr.setSelection(TextSelection.create(editor.state.doc, from, to)));
}

/** A clipboard event as the browser fires it, with a clipboard of its own (`store`). */
function clipboardEvent(type: 'cut' | 'copy' | 'paste', store: Record<string, string>): Event {
  const event = new Event(type, { bubbles: true, cancelable: true });
  Object.defineProperty(event, 'clipboardData', {
    value: {
      clearData: () => Object.keys(store).forEach((k) => delete store[k]),
      setData: (kind: string, value: string) => (store[kind] = value),
      getData: (kind: string) => store[kind] ?? '',
      types: Object.keys(store),
      files: [],
      items: [],
    },
  });
  return event;
}

function press(editor: Editor, key: string) {
  editor.commands.keyboardShortcut(key);
}

const keysOf = (editor: Editor) => blocks(editor).map(([, key]) => key);
const unique = (keys: string[]) => new Set(keys).size === keys.length;

describe('block keys in the editor', () => {
  it('starts with the keys its document has, and gives a block without one a Draft.js-like key of its own', () => {
    const editor = editorOn({ type: 'doc', content: [para('One', 'aaaaa'), para('Two', 'aaaaa'), para('Three')] });
    const keys = keysOf(editor);
    expect(keys[0]).toBe('aaaaa');
    expect(keys[1]).toMatch(/^[0-9a-z]{5}$/);
    expect(keys[2]).toMatch(/^[0-9a-z]{5}$/);
    expect(unique(keys)).toBe(true);
  });

  it('keeps a block’s key while its words are edited, typed or deleted', () => {
    const editor = editorOn(story());
    const before = keysOf(editor);
    editor.view.dispatch(editor.state.tr.insertText('container ', at(editor, 'Ships')));
    editor.view.dispatch(editor.state.tr.delete(at(editor, 'shut'), at(editor, 'shut') + 4).insertText('open', at(editor, 'shut')));
    const stop = at(editor, 'Monday.') + 'Monday'.length;
    editor.view.dispatch(editor.state.tr.delete(stop, stop + 1));
    expect(blocks(editor).map(([t]) => t)).toEqual(['Dock workers walk out.', 'The port is open.', 'container Ships wait offshore.', 'Talks resume Monday']);
    expect(keysOf(editor)).toEqual(before);
  });

  it('keeps the key on the first half of a paragraph split with Enter, and gives the second half a new one', () => {
    const editor = editorOn(story());
    select(editor, at(editor, 'wait offshore'));
    press(editor, 'Enter');
    const after = blocks(editor);
    expect(after.map(([t]) => t)).toEqual(['Dock workers walk out.', 'The port is shut.', 'Ships ', 'wait offshore.', 'Talks resume Monday.']);
    expect(after[2][1]).toBe('ship0');
    expect(after[3][1]).toMatch(/^[0-9a-z]{5}$/);
    expect(unique(keysOf(editor))).toBe(true);
    // Undone, the paragraph is whole again, with its key.
    editor.commands.undo();
    expect(blocks(editor)).toEqual(blocks(editorOn(story())));
  });

  it('keeps the key with the words when Enter at the start or the end of a paragraph makes an empty one', () => {
    const editor = editorOn(story());
    select(editor, at(editor, 'Ships'));
    press(editor, 'Enter');
    select(editor, at(editor, 'Talks resume Monday.') + 'Talks resume Monday.'.length);
    press(editor, 'Enter');
    const after = blocks(editor);
    expect(after.map(([t]) => t)).toEqual(['Dock workers walk out.', 'The port is shut.', '', 'Ships wait offshore.', 'Talks resume Monday.', '']);
    expect(after[3][1]).toBe('ship0');
    expect(after[4][1]).toBe('talk0');
    expect(unique(keysOf(editor))).toBe(true);
  });

  it('keeps the first paragraph’s key when Backspace joins the next one to it', () => {
    const editor = editorOn(story());
    select(editor, at(editor, 'Ships'));
    press(editor, 'Backspace');
    expect(blocks(editor)).toEqual([
      ['Dock workers walk out.', 'dock0'],
      ['The port is shut.Ships wait offshore.', 'port0'],
      ['Talks resume Monday.', 'talk0'],
    ]);
  });

  it('takes the key along when a block is moved by a transaction', () => {
    const editor = editorOn(story());
    const { doc } = editor.state;
    const third = doc.child(2);
    const start = doc.child(0).nodeSize + doc.child(1).nodeSize;
    editor.view.dispatch(editor.state.tr.delete(start, start + third.nodeSize).insert(0, third));
    expect(blocks(editor)).toEqual([
      ['Ships wait offshore.', 'ship0'],
      ['Dock workers walk out.', 'dock0'],
      ['The port is shut.', 'port0'],
      ['Talks resume Monday.', 'talk0'],
    ]);
  });

  it('takes the key along when a paragraph is cut and pasted at the top, as a writer does with the keyboard', () => {
    const editor = editorOn(story());
    const clipboard: Record<string, string> = {};
    // From the start of the third paragraph to the start of the fourth: the paragraph and its break.
    select(editor, at(editor, 'Ships'), at(editor, 'Talks'));
    editor.view.dom.dispatchEvent(clipboardEvent('cut', clipboard));
    expect(blocks(editor)).toEqual([
      ['Dock workers walk out.', 'dock0'],
      ['The port is shut.', 'port0'],
      ['Talks resume Monday.', 'talk0'],
    ]);
    select(editor, 1);
    editor.view.dom.dispatchEvent(clipboardEvent('paste', clipboard));
    expect(blocks(editor)).toEqual([
      ['Ships wait offshore.', 'ship0'],
      ['Dock workers walk out.', 'dock0'],
      ['The port is shut.', 'port0'],
      ['Talks resume Monday.', 'talk0'],
    ]);
    // The stored HTML holds no key: only the clipboard carried it.
    expect(editor.getHTML()).toBe('<p>Ships wait offshore.</p><p>Dock workers walk out.</p><p>The port is shut.</p><p>Talks resume Monday.</p>');
    expect(clipboard['text/html']).toContain('data-block-key="ship0"');
  });

  it('takes the key along when a paragraph is dragged to the top (the drop’s one transaction: the selection out, the slice in)', () => {
    const editor = editorOn(story());
    select(editor, at(editor, 'Ships'), at(editor, 'Talks'));
    const slice = editor.state.selection.content();
    const tr = editor.state.tr.deleteSelection();
    const top = tr.mapping.map(1);
    tr.replaceRange(top, top, slice).setMeta('uiEvent', 'drop');
    editor.view.dispatch(tr);
    expect(blocks(editor)).toEqual([
      ['Ships wait offshore.', 'ship0'],
      ['Dock workers walk out.', 'dock0'],
      ['The port is shut.', 'port0'],
      ['Talks resume Monday.', 'talk0'],
    ]);
  });

  it('gives the second half of a list item split with Enter a new key', () => {
    const editor = editorOn(story());
    select(editor, at(editor, 'The port'));
    editor.commands.toggleBulletList();
    select(editor, at(editor, 'is shut'));
    press(editor, 'Enter');
    expect(blocks(editor).slice(1, 3).map(([t]) => t)).toEqual(['The port ', 'is shut.']);
    expect(keysOf(editor)[1]).toBe('port0');
    expect(unique(keysOf(editor))).toBe(true);
    expect(keysOf(editor)).toHaveLength(5);
  });

  it('gives a pasted copy a new key and leaves the original its own', () => {
    const editor = editorOn(story());
    const clipboard: Record<string, string> = {};
    select(editor, at(editor, 'The port'), at(editor, 'Ships'));
    editor.view.dom.dispatchEvent(clipboardEvent('copy', clipboard));
    // Pasted after the last paragraph.
    select(editor, at(editor, 'Monday.') + 'Monday.'.length);
    press(editor, 'Enter');
    editor.view.dom.dispatchEvent(clipboardEvent('paste', clipboard));
    let after = blocks(editor);
    expect(after.map(([t]) => t)).toEqual(['Dock workers walk out.', 'The port is shut.', 'Ships wait offshore.', 'Talks resume Monday.', 'The port is shut.', '']);
    expect(after[1][1]).toBe('port0');
    expect(after[4][1]).not.toBe('port0');
    expect(unique(keysOf(editor))).toBe(true);
    // Pasted before the original, the copy is new all the same.
    select(editor, 1);
    editor.view.dom.dispatchEvent(clipboardEvent('paste', clipboard));
    after = blocks(editor);
    expect(after.slice(0, 3).map(([t]) => t)).toEqual(['The port is shut.', 'Dock workers walk out.', 'The port is shut.']);
    expect(after[2][1]).toBe('port0');
    expect(unique(keysOf(editor))).toBe(true);
  });

  it('keeps the key of a paragraph turned into a heading, a list item or a quote', () => {
    const editor = editorOn(story());
    select(editor, at(editor, 'Ships'));
    editor.commands.toggleHeading({ level: 2 });
    select(editor, at(editor, 'The port'));
    editor.commands.toggleBulletList();
    select(editor, at(editor, 'Talks'));
    editor.commands.toggleBlockquote();
    // Two paragraphs made headings at once.
    select(editor, at(editor, 'Dock'), at(editor, 'Ships') + 2);
    editor.commands.setNode('heading', { level: 3 });
    expect(editor.getJSON().content?.map((n) => n.type)).toEqual(['heading', 'bulletList', 'heading', 'blockquote']);
    expect(keysOf(editor)).toEqual(['dock0', 'port0', 'ship0', 'talk0']);
  });

  it('keeps a photo’s key, and gives a photo placed in the middle of a paragraph a new one', () => {
    const editor = editorOn(story());
    select(editor, at(editor, 'walk out'));
    editor.commands.setImage({ src: SRC, alt: 'Cranes' });
    const after = blocks(editor);
    expect(after.map(([t]) => t)).toEqual(['Dock workers ', '[Cranes]', 'walk out.', 'The port is shut.', 'Ships wait offshore.', 'Talks resume Monday.']);
    expect(after[0][1]).toBe('dock0');
    expect(unique(keysOf(editor))).toBe(true);
    const raw = toRaw(editor.getJSON() as PmNode);
    expect(raw.blocks.map((b) => b.key)).toEqual(keysOf(editor));
    expect(keysOf(editorOn(fromRaw(raw)))).toEqual(keysOf(editor));
  });

  it('writes the keys into raw content, and a story reopened from it has them again', () => {
    const editor = editorOn(story());
    select(editor, at(editor, 'Ships'), at(editor, 'Talks'));
    const clipboard: Record<string, string> = {};
    editor.view.dom.dispatchEvent(clipboardEvent('cut', clipboard));
    select(editor, 1);
    editor.view.dom.dispatchEvent(clipboardEvent('paste', clipboard));
    const raw = toRaw(editor.getJSON() as PmNode);
    expect(raw.blocks.map((b) => [b.key, b.text])).toEqual([
      ['ship0', 'Ships wait offshore.'],
      ['dock0', 'Dock workers walk out.'],
      ['port0', 'The port is shut.'],
      ['talk0', 'Talks resume Monday.'],
    ]);
    expect(toRaw(fromRaw(raw))).toEqual(raw);
    expect(toRaw(editorOn(fromRaw(raw)).getJSON() as PmNode)).toEqual(raw);
  });

  it('gives a story opened from HTML the keys of its raw content where the blocks say the same, new ones elsewhere', () => {
    const raw = toRaw(story());
    const html = '<p>Dock workers walk out.</p><p>The port is shut.</p><p>A new paragraph.</p><p>Ships wait offshore.</p><p>Talks resume Monday.</p>';
    const keys = keysOf(editorOn(html, raw));
    expect(keys.filter((_, i) => i !== 2)).toEqual(['dock0', 'port0', 'ship0', 'talk0']);
    expect(keys[2]).toMatch(/^[0-9a-z]{5}$/);
    expect(unique(keys)).toBe(true);
    // HTML alone: every block gets a fresh key.
    const fresh = keysOf(editorOn(html));
    expect(fresh).toHaveLength(5);
    expect(unique(fresh)).toBe(true);
    for (const key of fresh) expect(key).toMatch(/^[0-9a-z]{5}$/);
  });

  it('gives an editor started on a document without keys its keys, outside the undo history', async () => {
    const editor = new Editor({ element: document.createElement('div'), extensions, content: '<p>One</p><p>Two</p>' });
    open.push(editor);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const keys = keysOf(editor);
    expect(unique(keys) && keys.every((k) => /^[0-9a-z]{5}$/.test(k))).toBe(true);
    expect(editor.can().undo()).toBe(false);
    // Nothing to change on a document whose keys are fine.
    expect(keyChanges(editor.state.doc, editor.state.doc)).toEqual([]);
  });
});

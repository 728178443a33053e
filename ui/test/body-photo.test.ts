// @vitest-environment jsdom
// A photo placed in the body survives every form the body takes: the editor's
// document, Draft.js raw content (checked against the real `draft-js`: an
// atomic block whose one character carries an IMAGE entity, as
// AtomicBlockUtils makes it) and the editor's HTML; an image with an address
// the server would not keep is not taken in.

import { describe, expect, it } from 'vitest';
import draft from 'draft-js';
import { Editor } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import { fromRaw, toRaw, type PmNode, type RawContent } from '../src/draftjs';
import { BodyPhoto, safeImageSrc, shownSrc } from '../src/photo-node';

const { AtomicBlockUtils, ContentState, EditorState, SelectionState, convertFromRaw, convertToRaw } = draft;

const SRC = '/files/0f1e2d3c4b5a69788796a5b4c3d2e1f0/public.png';
const photo = (src = SRC, alt = 'Dockers at the gate'): PmNode => ({
  type: 'image',
  attrs: { src, alt, title: null, width: null, height: null },
});
const para = (text: string): PmNode => ({ type: 'paragraph', content: [{ type: 'text', text }] });
/** A document without its block keys (which raw content always gives). */
const keyless = (node: PmNode): PmNode => {
  const { blockKey: _, ...attrs } = node.attrs ?? {};
  const out: PmNode = { ...node, attrs };
  if (!Object.keys(attrs).length) delete out.attrs;
  if (node.content) out.content = node.content.map(keyless);
  return out;
};

const story: PmNode = {
  type: 'doc',
  content: [para('Dock workers walk out.'), photo(), para('The port is shut.')],
};

describe('a photo in Draft.js raw content', () => {
  it('is an atomic block whose one character carries an IMAGE entity, read so by draft-js', () => {
    const raw = toRaw(story);
    expect(raw.blocks.map((b) => [b.type, b.text])).toEqual([
      ['unstyled', 'Dock workers walk out.'],
      ['atomic', ' '],
      ['unstyled', 'The port is shut.'],
    ]);
    expect(raw.blocks[1].entityRanges).toEqual([{ offset: 0, length: 1, key: 0 }]);
    expect(raw.entityMap['0']).toEqual({ type: 'IMAGE', mutability: 'IMMUTABLE', data: { src: SRC, alt: 'Dockers at the gate' } });

    const state = convertFromRaw(raw as unknown as draft.RawDraftContentState);
    const block = state.getBlocksAsArray()[1];
    expect(block.getType()).toBe('atomic');
    const entity = state.getEntity(block.getEntityAt(0));
    expect(entity.getType()).toBe('IMAGE');
    expect(entity.getMutability()).toBe('IMMUTABLE');
    expect(entity.getData()).toEqual({ src: SRC, alt: 'Dockers at the gate' });
  });

  it('comes back from raw content to the same place in the document', () => {
    expect(keyless(fromRaw(toRaw(story)))).toEqual(story);
    // Written back by Draft.js itself, still a photo between the paragraphs.
    const back = convertToRaw(convertFromRaw(toRaw(story) as unknown as draft.RawDraftContentState)) as unknown as RawContent;
    expect(keyless(fromRaw(back))).toEqual(story);
  });

  it('reads a photo placed by a Draft.js editor (AtomicBlockUtils.insertAtomicBlock)', () => {
    let content = ContentState.createFromText('Before the photo.\nAfter the photo.');
    content = content.createEntity('IMAGE', 'IMMUTABLE', { src: SRC, alt: 'Cranes' });
    const entityKey = content.getLastCreatedEntityKey();
    const first = content.getFirstBlock();
    const atEnd = SelectionState.createEmpty(first.getKey()).merge({ anchorOffset: first.getLength(), focusOffset: first.getLength() });
    const state = EditorState.forceSelection(EditorState.createWithContent(content), atEnd);
    const placed = AtomicBlockUtils.insertAtomicBlock(state, entityKey, ' ');
    const raw = convertToRaw(placed.getCurrentContent()) as unknown as RawContent;
    const doc = fromRaw(raw);
    const kinds = (doc.content ?? []).map((n) => n.type);
    // (insertAtomicBlock splits the block at the cursor: an empty one follows the photo.)
    expect(kinds).toEqual(['paragraph', 'image', 'paragraph', 'paragraph']);
    const image = (doc.content ?? []).find((n) => n.type === 'image');
    expect(image?.attrs).toMatchObject({ src: SRC, alt: 'Cranes' });
    // And ours, written again, is what Draft.js reads as the same photo.
    const again = convertFromRaw(toRaw(doc) as unknown as draft.RawDraftContentState);
    const atomic = again.getBlocksAsArray().find((b) => b.getType() === 'atomic')!;
    expect(again.getEntity(atomic.getEntityAt(0)).getData()).toEqual({ src: SRC, alt: 'Cranes' });
  });

  it('keeps several photos, each with its own entity, numbered in order', () => {
    const two: PmNode = { type: 'doc', content: [photo(SRC, 'One'), para('Between.'), photo('https://example.org/b.jpg', 'Two')] };
    const raw = toRaw(two);
    expect(Object.values(raw.entityMap).map((e) => e.data.alt)).toEqual(['One', 'Two']);
    expect(raw.blocks[2].entityRanges[0].key).toBe(1);
    expect(keyless(fromRaw(raw))).toEqual(two);
  });
});

describe('the editor’s photo node', () => {
  const editorWith = (content: string | PmNode) =>
    new Editor({ element: document.createElement('div'), extensions: [StarterKit, BodyPhoto.configure({ base: 'http://127.0.0.1:8080' })], content: content as never });

  it('writes a figure holding the image, and reads it back', () => {
    const editor = editorWith(story);
    const html = editor.getHTML();
    expect(html).toBe(`<p>Dock workers walk out.</p><figure><img src="${SRC}" alt="Dockers at the gate"></figure><p>The port is shut.</p>`);
    const again = editorWith(html);
    expect(again.getJSON()).toEqual(editor.getJSON());
    expect(toRaw(again.getJSON() as PmNode)).toEqual(toRaw(story));
    // Shown from the service, with its caption.
    const shown = editor.view.dom.querySelector('figure.body-photo');
    expect(shown?.querySelector('img')?.getAttribute('src')).toBe(`http://127.0.0.1:8080${SRC}`);
    expect(shown?.querySelector('figcaption')?.textContent).toBe('Dockers at the gate');
    editor.destroy();
    again.destroy();
  });

  it('places a photo at the cursor, splitting the paragraph there', () => {
    const editor = editorWith('<p>Dock workers walk out.</p>');
    editor.commands.setTextSelection(6); // after “Dock ”
    editor.chain().focus().setImage({ src: SRC, alt: 'Dockers' }).run();
    expect(editor.getHTML()).toBe(`<p>Dock </p><figure><img src="${SRC}" alt="Dockers"></figure><p>workers walk out.</p>`);
    editor.destroy();
  });

  it('takes in no image whose address the server would not keep', () => {
    for (const src of ['javascript:alert(1)', 'data:image/png;base64,AAAA', 'http://example.org/a.png', '//evil.example/a.png', '/files/../x']) {
      const editor = editorWith(`<p>a</p><img src="${src}" alt="x" onerror="alert(2)"><p>b</p>`);
      expect(editor.getHTML()).toBe('<p>a</p><p>b</p>');
      editor.destroy();
    }
  });

  it('agrees with the server on safe addresses', () => {
    expect(safeImageSrc(SRC)).toBe(true);
    expect(safeImageSrc('https://example.org/a.jpg')).toBe(true);
    for (const bad of ['', 'https://', 'http://x.org/a.png', 'javascript:x', 'data:image/png;base64,AA', '/files/', '/files/a b.png', '/v3/content', 'https://x.org/a"b']) {
      expect(safeImageSrc(bad), bad).toBe(false);
    }
    expect(shownSrc(SRC, '')).toBe(SRC);
    expect(shownSrc('https://example.org/a.jpg', 'http://h')).toBe('https://example.org/a.jpg');
  });
});

// The Draft.js conversion checked against the real `draft-js` package: what
// we write, Draft.js reads; what Draft.js writes, we read back unchanged,
// each block's key included.

import { describe, expect, it } from 'vitest';
import draft from 'draft-js';
import { fromRaw, parseRaw, toRaw, type PmNode } from '../src/draftjs';

const { convertFromRaw, convertToRaw } = draft;

const text = (t: string, ...marks: PmNode['marks'][]): PmNode => {
  const flat = marks.flat().filter(Boolean) as NonNullable<PmNode['marks']>;
  return flat.length ? { type: 'text', text: t, marks: flat } : { type: 'text', text: t };
};
const bold = [{ type: 'bold' }];
const italic = [{ type: 'italic' }];
const link = (href: string) => [{ type: 'link', attrs: { href } }];
const key = (blockKey: string) => ({ blockKey });

const story: PmNode = {
  type: 'doc',
  content: [
    { type: 'heading', attrs: { level: 2, blockKey: 'fl00d' }, content: [text('Flood 🌊 reaches 4.2 m')] },
    {
      type: 'paragraph',
      attrs: key('d4m00'),
      content: [
        text('The dam 🏗️ '),
        text('held', bold),
        text(' overnight, says '),
        text('the engineer 👷🏽', italic, link('https://example.org/eng')),
        text('.'),
      ],
    },
    {
      type: 'bulletList',
      content: [
        {
          type: 'listItem',
          content: [
            { type: 'paragraph', attrs: key('n0rth'), content: [text('North bank: 𝒹𝓇𝓎')] },
            {
              type: 'bulletList',
              content: [{ type: 'listItem', content: [{ type: 'paragraph', attrs: key('s4ndb'), content: [text('sandbags', bold, italic)] }] }],
            },
          ],
        },
        { type: 'listItem', content: [{ type: 'paragraph', attrs: key('s0uth'), content: [text('South bank: wet')] }] },
      ],
    },
    { type: 'blockquote', content: [{ type: 'paragraph', attrs: key('lucky'), content: [text('“We were lucky”')] }] },
    { type: 'paragraph', attrs: key('l1ne2'), content: [text('Line one'), { type: 'hardBreak' }, text('line two')] },
  ],
};

describe('Draft.js raw content', () => {
  it('is accepted by draft-js convertFromRaw, text intact', () => {
    const raw = toRaw(story);
    const state = convertFromRaw(raw as unknown as draft.RawDraftContentState);
    const blocks = state.getBlocksAsArray();
    expect(blocks.map((b) => b.getText())).toEqual([
      'Flood 🌊 reaches 4.2 m',
      'The dam 🏗️ held overnight, says the engineer 👷🏽.',
      'North bank: 𝒹𝓇𝓎',
      'sandbags',
      'South bank: wet',
      '“We were lucky”',
      'Line one\nline two',
    ]);
    expect(blocks.map((b) => b.getType())).toEqual([
      'header-two',
      'unstyled',
      'unordered-list-item',
      'unordered-list-item',
      'unordered-list-item',
      'blockquote',
      'unstyled',
    ]);
    expect(blocks[3].getDepth()).toBe(1);
    expect(blocks.map((b) => b.getKey())).toEqual(['fl00d', 'd4m00', 'n0rth', 's4ndb', 's0uth', 'lucky', 'l1ne2']);
  });

  it('gives a block without a key, or with one an earlier block has, a key of its own', () => {
    const para = (t: string, attrs?: Record<string, unknown>): PmNode => ({ type: 'paragraph', ...(attrs ? { attrs } : {}), content: [text(t)] });
    const doc: PmNode = { type: 'doc', content: [para('One', key('aaaaa')), para('Two', key('aaaaa')), para('Three'), para('Four', key('')), para('Five', key('bbbbb'))] };
    const raw = toRaw(doc);
    const keys = raw.blocks.map((b) => b.key);
    expect(keys[0]).toBe('aaaaa');
    expect(keys[4]).toBe('bbbbb');
    expect(new Set(keys).size).toBe(5);
    for (const k of keys.slice(1, 4)) expect(k).toMatch(/^[0-9a-z]{5}$/);
    // Draft.js keeps every block (a repeated key would fold two into one).
    expect(convertFromRaw(raw as unknown as draft.RawDraftContentState).getBlocksAsArray().map((b) => [b.getKey(), b.getText()])).toEqual(
      raw.blocks.map((b) => [b.key, b.text]),
    );
    // Written the same way each time.
    expect(toRaw(doc)).toEqual(raw);
  });

  it('reads each block’s key into the document, the first of a repeated key keeping it', () => {
    const raw = toRaw(story);
    raw.blocks[1].key = raw.blocks[0].key;
    const doc = fromRaw(raw);
    expect(doc.content?.[0].attrs?.blockKey).toBe('fl00d');
    expect(doc.content?.[1].attrs).toBeUndefined();
    expect(toRaw(doc).blocks.map((b) => b.key)).toEqual(expect.arrayContaining(['fl00d', 'n0rth', 's4ndb', 's0uth', 'lucky', 'l1ne2']));
    expect(new Set(toRaw(doc).blocks.map((b) => b.key)).size).toBe(7);
  });

  it('keeps styles and links where Draft.js puts them (UTF-16 offsets, emoji included)', () => {
    const state = convertFromRaw(toRaw(story) as unknown as draft.RawDraftContentState);
    const line = state.getBlocksAsArray()[1];
    const held = line.getText().indexOf('held');
    expect(line.getInlineStyleAt(held).has('BOLD')).toBe(true);
    expect(line.getInlineStyleAt(held - 1).has('BOLD')).toBe(false);
    const engineer = line.getText().indexOf('the engineer');
    const entityKey = line.getEntityAt(engineer + 'the engineer 👷🏽'.length - 1);
    expect(entityKey).not.toBeNull();
    expect(state.getEntity(entityKey).getData().url).toBe('https://example.org/eng');
    expect(line.getInlineStyleAt(engineer).has('ITALIC')).toBe(true);
    expect(line.getEntityAt(line.getText().length - 1)).toBeNull();
  });

  it('survives a round trip through Draft.js unchanged', () => {
    const back = convertToRaw(convertFromRaw(toRaw(story) as unknown as draft.RawDraftContentState));
    expect(fromRaw(back as never)).toEqual(story);
  });

  it('reads what Draft.js writes, with an entity map as an object or an array', () => {
    const raw = toRaw(story);
    const asArray = { ...raw, entityMap: Object.values(raw.entityMap) };
    expect(fromRaw(asArray as never)).toEqual(story);
    expect(parseRaw(JSON.stringify(raw))).toEqual(raw);
    expect(parseRaw('not json')).toBeUndefined();
  });

  it('gives an empty document one empty block', () => {
    const raw = toRaw({ type: 'doc', content: [] });
    expect(convertFromRaw(raw as never).getPlainText()).toBe('');
    expect(fromRaw(raw)).toEqual({ type: 'doc', content: [{ type: 'paragraph', attrs: { blockKey: raw.blocks[0].key } }] });
  });
});

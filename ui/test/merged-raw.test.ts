// What the server's three-way merge writes as Draft.js raw content, checked
// against the real `draft-js`: the fixture is written by the merge's own
// Rust tests (crates/core/src/merge/tests.rs), which fail when it is stale.

import { describe, expect, it } from 'vitest';
import draft from 'draft-js';
import fixtures from './fixtures/merged-raw.json';
import { fromRaw, type PmNode } from '../src/draftjs';

const { convertFromRaw, convertToRaw } = draft;

type Raw = draft.RawDraftContentState;

describe('merged Draft.js raw content', () => {
  for (const fixture of fixtures) {
    it(`is read by draft-js with its text, styles and links intact: ${fixture.name}`, () => {
      const raw = fixture.raw as unknown as Raw;
      const state = convertFromRaw(raw);
      expect(state.getBlocksAsArray().map((b) => b.getText())).toEqual(fixture.texts);
      // Written back by Draft.js itself, the same text, styles and links.
      const back = convertToRaw(state);
      expect(back.blocks.map((b) => [b.key, b.type, b.text])).toEqual(raw.blocks.map((b) => [b.key, b.type, b.text]));
      const styles = (r: Raw) => r.blocks.map((b) => [...b.inlineStyleRanges].sort((x, y) => x.offset - y.offset));
      expect(styles(back)).toEqual(styles(raw));
      const links = (r: Raw) =>
        r.blocks.map((b) => b.entityRanges.map((e) => [e.offset, e.length, r.entityMap[e.key]?.data?.url]));
      expect(links(back)).toEqual(links(raw));
      // And the editor reads all of its text.
      // (A photo's block holds one space in Draft.js, and no text in the editor.)
      const textOf = (node: PmNode): string => (node.type === 'image' ? ' ' : node.text ?? (node.content ?? []).map(textOf).join(''));
      expect(textOf(fromRaw(back as never))).toBe(fixture.texts.join(''));
    });
  }

  it('keeps bold on the word it was on and off the word the other side replaced next to it', () => {
    const state = convertFromRaw(fixtures[0].raw as unknown as Raw);
    const line = state.getBlocksAsArray()[0];
    const text = line.getText();
    expect(line.getInlineStyleAt(text.indexOf('Water')).has('BOLD')).toBe(true);
    expect(line.getInlineStyleAt(text.indexOf('rose')).has('BOLD')).toBe(false);
    const key = line.getEntityAt(text.indexOf('north'));
    expect(key).not.toBeNull();
    expect(state.getEntity(key).getData().url).toBe('https://example.org/n');
    expect(line.getEntityAt(text.indexOf('today'))).toBeNull();
  });
});

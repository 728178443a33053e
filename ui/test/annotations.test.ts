// @vitest-environment jsdom
// Notes and suggested edits survive the editor: raw content the server's
// merge wrote (the fixture, from crates/text's tests) read into the editor's
// document and written back keeps every character's note, suggestion and
// link; the server's HTML opened in a real TipTap editor and written out
// again keeps its <ins>, <del> and note spans; draft-js reads what we write.

import { describe, expect, it } from 'vitest';
import draft from 'draft-js';
import { Editor } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import fixtures from './fixtures/merged-raw.json';
import { fromRaw, toRaw, type PmNode, type RawContent } from '../src/draftjs';
import { NoteMark, SuggestionMark } from '../src/annotation-marks';

const { convertFromRaw, convertToRaw } = draft;

const annotated = fixtures.find((f) => f.name.includes('note and suggestions')) as { raw: unknown; texts: string[] };

/** Each character's entity, by value, with its data's members sorted. */
function perCharacter(raw: RawContent): string[][] {
  const sorted = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sorted);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => [k, sorted(v)]),
      );
    }
    return value;
  };
  return raw.blocks.map((block) => {
    const chars = Array.from(block.text).map(() => '');
    for (const range of block.entityRanges) {
      const entity = raw.entityMap[String(range.key)];
      for (let i = range.offset; i < range.offset + range.length; i++) {
        chars[i] = JSON.stringify(sorted({ type: entity.type, data: entity.data }));
      }
    }
    return chars;
  });
}

const marksOf = (doc: PmNode): string[] => {
  const out: string[] = [];
  const walk = (node: PmNode) => {
    if (node.type === 'text') {
      out.push(`${node.text}: ${(node.marks ?? []).map((m) => m.type).join(',')}`);
    }
    (node.content ?? []).forEach(walk);
  };
  walk(doc);
  return out;
};

describe('notes and suggested edits in the editor', () => {
  const raw = annotated.raw as RawContent;

  it('come into the editor as note and suggestion marks on their words', () => {
    const doc = fromRaw(raw);
    expect(marksOf(doc)).toEqual([
      'The : ',
      'council: link,note',
      ' : note',
      'narrowly: note,suggestion',
      ' : suggestion',
      'voted : ',
      'to raise : suggestion',
      'fees: suggestion',
      '.: ',
      'More tonight.: ',
    ]);
    const suggestion = JSON.stringify(doc).match(/"kind":"deletion"/g);
    expect(suggestion).toHaveLength(1);
  });

  it('go back to raw content with every character as it was, and draft-js reads it', () => {
    const back = toRaw(fromRaw(raw));
    expect(back.blocks.map((b) => b.text)).toEqual(annotated.texts);
    expect(perCharacter(back)).toEqual(perCharacter(raw));
    // One entity per character, as Draft.js keeps them.
    const state = convertFromRaw(back as unknown as draft.RawDraftContentState);
    const again = convertToRaw(state) as unknown as RawContent;
    expect(perCharacter(again)).toEqual(perCharacter(raw));
  });

  it('keep their elements through the editor as HTML', () => {
    const html =
      '<p><span data-notes="n1">Fees</span> ' +
      '<ins data-suggestion="s1" data-author="Desk" data-at="2026-11-28T08:00:00Z">sharply </ins>rise ' +
      '<del data-suggestion="s2" data-author="Desk" data-at="2026-11-28T08:00:00Z">today</del> ' +
      '<span data-suggestion="s3" data-style="BOLD" data-on="true" data-author="Ana" data-at="">again</span>.</p>';
    const editor = new Editor({
      element: document.createElement('div'),
      extensions: [StarterKit.configure({ horizontalRule: false, trailingNode: false }), NoteMark, SuggestionMark],
      content: html,
    });
    const written = editor.getHTML();
    expect(written).toBe(html);
    // A <del> of its own is still strike-through.
    editor.commands.setContent('<p>a <del>struck</del> word</p>');
    expect(editor.getHTML()).toBe('<p>a <s>struck</s> word</p>');
    editor.destroy();
  });
});

// Find and replace over the body's document, with the editor's own schema.

import { getSchema } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import { EditorState } from '@tiptap/pm/state';
import { describe, expect, it } from 'vitest';
import { findMatches, replaceAllIn } from '../src/find';

const schema = getSchema([StarterKit]);
const doc = schema.nodeFromJSON({
  type: 'doc',
  content: [
    { type: 'paragraph', content: [{ type: 'text', text: 'The Council met. The council voted.' }] },
    {
      type: 'paragraph',
      content: [
        { type: 'text', text: 'A coun' },
        { type: 'text', text: 'cil', marks: [{ type: 'bold' }] },
        { type: 'text', text: ' member left.' },
      ],
    },
  ],
});
const textOf = (n: typeof doc) => n.textBetween(0, n.content.size, '\n');

describe('find', () => {
  it('finds every occurrence, without case by default, across bold parts of a word', () => {
    const found = findMatches(doc, 'council');
    expect(found).toHaveLength(3);
    expect(found.map((m) => doc.textBetween(m.from, m.to))).toEqual(['Council', 'council', 'council']);
  });

  it('matches case when asked', () => {
    expect(findMatches(doc, 'Council', true)).toHaveLength(1);
    expect(findMatches(doc, '')).toEqual([]);
  });

  it('replaces all in one transaction, keeping the rest of the text', () => {
    const state = EditorState.create({ doc });
    const done = replaceAllIn(state, 'council', 'board');
    expect(done?.count).toBe(3);
    expect(textOf(state.apply(done!.tr).doc)).toBe('The board met. The board voted.\nA board member left.');
    expect(replaceAllIn(state, 'parliament', 'x')).toBeUndefined();
  });
});

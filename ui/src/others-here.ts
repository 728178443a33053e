// The paragraphs other people are in, marked in the editor with their
// names (from presence: src/live.ts): a decoration on each top-level block
// whose Draft.js key someone else's cursor is in, never part of the text.

import { Extension } from '@tiptap/core';
import type { Node as ProseNode } from '@tiptap/pm/model';
import { Plugin, PluginKey, type EditorState, type Transaction } from '@tiptap/pm/state';
import { Decoration, DecorationSet } from '@tiptap/pm/view';
import { BLOCK_KEY } from './draftjs';

/** Someone else in a block: its key, their name, whether they are editing. */
export interface OtherHere {
  block: string;
  name: string;
  editing: boolean;
}

export const othersKey = new PluginKey<OtherHere[]>('others-here');

/** The marks for `others` over `doc`'s blocks. */
function decorations(doc: ProseNode, others: OtherHere[]): DecorationSet {
  if (!others.length) return DecorationSet.empty;
  const marks: Decoration[] = [];
  doc.forEach((node, offset) => {
    const key = node.attrs[BLOCK_KEY] as string | undefined;
    const here = others.filter((o) => o.block === key);
    if (!key || !here.length) return;
    const who = here.map((o) => `${o.name}${o.editing ? ' is editing' : ' is here'}`).join('; ');
    marks.push(Decoration.node(offset, offset + node.nodeSize, { class: 'someone-here', 'data-who': who }));
  });
  return DecorationSet.create(doc, marks);
}

/** Says who else is in which block (a transaction of its own, not an edit). */
export function showOthers(state: EditorState, others: OtherHere[]): Transaction {
  return state.tr.setMeta(othersKey, others).setMeta('addToHistory', false);
}

/** The key of the top-level block the cursor is in, if it has one. */
export function cursorBlock(state: EditorState): string | null {
  const { $from } = state.selection;
  if ($from.depth < 1) return null;
  const key = $from.node(1).attrs[BLOCK_KEY] as string | undefined;
  return key ?? null;
}

export const OthersHere = Extension.create({
  name: 'othersHere',
  addProseMirrorPlugins() {
    return [
      new Plugin<OtherHere[]>({
        key: othersKey,
        state: {
          init: () => [],
          apply: (tr, others) => (tr.getMeta(othersKey) as OtherHere[] | undefined) ?? others,
        },
        props: {
          decorations: (state) => decorations(state.doc, othersKey.getState(state) ?? []),
        },
      }),
    ];
  },
});

// Find and replace in the story's body: where a word occurs (also across bold
// or linked parts of it), and a ProseMirror plugin that marks the matches on
// the page while the find panel is open.

import { Extension } from '@tiptap/core';
import type { Node as PmNode } from '@tiptap/pm/model';
import { Plugin, PluginKey, type EditorState, type Transaction } from '@tiptap/pm/state';
import { Decoration, DecorationSet } from '@tiptap/pm/view';

/** A match: document positions, `to` past its last character. */
export interface Match {
  from: number;
  to: number;
}

/** What is looked for; `current` is the index of the match the journalist is on (-1: none yet). */
export interface FindQuery {
  needle: string;
  matchCase: boolean;
  current: number;
}

/** Lower case that keeps every UTF-16 unit in place, so offsets in the folded text are offsets in the original. */
function folded(text: string): string {
  let out = '';
  for (const unit of text) {
    const lower = unit.toLowerCase();
    out += lower.length === unit.length ? lower : unit;
  }
  return out;
}

/** Every occurrence of `needle` in the document's text blocks, in order (case-insensitive unless `matchCase`). */
export function findMatches(doc: PmNode, needle: string, matchCase = false): Match[] {
  if (!needle) return [];
  const wanted = matchCase ? needle : folded(needle);
  const found: Match[] = [];
  doc.descendants((node, pos) => {
    if (!node.isTextblock) return true;
    // The block's text, with the document position of each UTF-16 unit.
    let text = '';
    const at: number[] = [];
    node.forEach((child, offset) => {
      const start = pos + 1 + offset;
      if (child.isText) {
        const t = child.text ?? '';
        for (let i = 0; i < t.length; i++) at.push(start + i);
        text += t;
      } else {
        // A line break or an inline image: one position no word runs across.
        at.push(start);
        text += '\uFFFC';
      }
    });
    const hay = matchCase ? text : folded(text);
    for (let i = hay.indexOf(wanted); i !== -1; i = hay.indexOf(wanted, i + wanted.length)) {
      found.push({ from: at[i]!, to: at[i + wanted.length - 1]! + 1 });
    }
    return false;
  });
  return found;
}

/** A transaction replacing every match with `replacement` (one step to undo); `undefined` when nothing matches. */
export function replaceAllIn(state: EditorState, needle: string, replacement: string, matchCase = false): { tr: Transaction; count: number } | undefined {
  const matches = findMatches(state.doc, needle, matchCase);
  if (!matches.length) return undefined;
  const tr = state.tr;
  // From the last to the first, so that earlier positions stay where they were.
  for (const m of [...matches].reverse()) {
    if (replacement) tr.insertText(replacement, m.from, m.to);
    else tr.delete(m.from, m.to);
  }
  return { tr, count: matches.length };
}

export const findKey = new PluginKey<FindQuery | undefined>('find');

/** Marks the matches of the open find panel (`find-match`, the current one also `find-current`). */
export const FindHighlight = Extension.create({
  name: 'findHighlight',
  addProseMirrorPlugins() {
    return [
      new Plugin<FindQuery | undefined>({
        key: findKey,
        state: {
          init: () => undefined,
          apply: (tr, value) => {
            const meta = tr.getMeta(findKey) as FindQuery | null | undefined;
            return meta === undefined ? value : (meta ?? undefined);
          },
        },
        props: {
          decorations(state) {
            const q = findKey.getState(state);
            if (!q?.needle) return null;
            const matches = findMatches(state.doc, q.needle, q.matchCase);
            return DecorationSet.create(
              state.doc,
              matches.map((m, i) => Decoration.inline(m.from, m.to, { class: i === q.current ? 'find-match find-current' : 'find-match' })),
            );
          },
        },
      }),
    ];
  },
});

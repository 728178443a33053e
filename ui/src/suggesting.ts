// Suggested edits and notes made in the editor: typing, deleting and
// styling turned into suggestions while "Suggest" is on, accepting and
// rejecting them, notes put on selected words, and the lists the review
// panel shows. The functions take and give ProseMirror states and
// transactions, so they are tested without a browser
// (test/suggesting.test.ts); the marks are src/annotation-marks.ts's.
//
// Written here rather than taken from
// @handlewithcare/prosemirror-suggest-changes: that library's marks carry a
// number per document and no author or time, and it must own the view's
// dispatch, which TipTap keeps; ours must be UUIDs with their author and
// time, in the shape the server merges (docs/decisions.md).

import { Extension } from '@tiptap/core';
import type { Mark, MarkType, Node as ProseNode } from '@tiptap/pm/model';
import { Plugin, PluginKey, TextSelection, type EditorState, type Transaction } from '@tiptap/pm/state';
import type { SuggestionAttrs, SuggestionKind } from './annotation-marks';

/** Who suggests, and how a suggestion gets its id and time. */
export interface Suggester {
  author: string;
  newId: () => string;
  now: () => string;
}

/** The Draft.js style each style mark is written as (src/draftjs.ts's names). */
export const STYLE_OF_MARK: Record<string, string> = { bold: 'BOLD', italic: 'ITALIC', underline: 'UNDERLINE' };
const MARK_OF_STYLE: Record<string, string> = Object.fromEntries(Object.entries(STYLE_OF_MARK).map(([mark, style]) => [style, mark]));

const suggestionType = (state: EditorState): MarkType => state.schema.marks.suggestion;

function suggestionsOn(node: ProseNode | null | undefined): SuggestionAttrs[] {
  return (node?.marks ?? []).filter((m) => m.type.name === 'suggestion').map((m) => m.attrs as SuggestionAttrs);
}

const ofKind = (node: ProseNode | null | undefined, kind: SuggestionKind, author?: string) =>
  suggestionsOn(node).find((s) => s.kind === kind && (author === undefined || s.author === author));

/** A new suggestion's attributes, taking the id of the same author's same kind of suggestion beside it (so a word typed is one suggestion). */
function attrsFor(kind: SuggestionKind, who: Suggester, beside: (SuggestionAttrs | undefined)[]): SuggestionAttrs {
  const near = beside.find((s) => s !== undefined);
  return near ?? { id: who.newId(), kind, author: who.author, at: who.now() };
}

/** Marks each character of from..to as suggested for deletion; the suggester's own suggested words there are deleted outright. */
export function suggestDeletion(state: EditorState, from: number, to: number, who: Suggester, tr: Transaction = state.tr): Transaction {
  const type = suggestionType(state);
  const own: [number, number][] = [];
  const marking: [number, number][] = [];
  tr.doc.nodesBetween(from, to, (node, pos) => {
    if (!node.isText) return true;
    const start = Math.max(pos, from);
    const end = Math.min(pos + node.nodeSize, to);
    if (ofKind(node, 'insertion', who.author)) own.push([start, end]);
    else if (!ofKind(node, 'deletion')) marking.push([start, end]);
    return false;
  });
  if (marking.length) {
    const first = marking[0][0];
    const last = marking[marking.length - 1][1];
    const attrs = attrsFor('deletion', who, [
      ofKind(tr.doc.resolve(first).nodeBefore, 'deletion', who.author),
      ofKind(tr.doc.resolve(last).nodeAfter, 'deletion', who.author),
    ]);
    for (const [start, end] of marking) tr.addMark(start, end, type.create(attrs));
  }
  for (const [start, end] of own.reverse()) tr.delete(start, end);
  return tr;
}

/** Suggests `text` in place of from..to: the words there are suggested for deletion, the new ones inserted after them, marked. */
export function suggestInsertion(state: EditorState, from: number, to: number, text: string, who: Suggester): Transaction {
  const tr = state.tr;
  if (from < to) suggestDeletion(state, from, to, who, tr);
  const at = tr.mapping.map(to);
  const $at = tr.doc.resolve(at);
  const attrs = attrsFor('insertion', who, [ofKind($at.nodeBefore, 'insertion', who.author), ofKind($at.nodeAfter, 'insertion', who.author)]);
  // The words around keep their styles and notes over the new words; no other suggestion does.
  const around = (state.storedMarks ?? $at.marks()).filter((m) => m.type.name !== 'suggestion');
  const marks: Mark[] = [...around, suggestionType(state).create(attrs)];
  tr.insert(at, state.schema.text(text, marks));
  tr.setSelection(TextSelection.create(tr.doc, at + text.length));
  return tr;
}

/** Suggests putting a style on the selected words, or taking it off where they all have it. */
export function suggestStyle(state: EditorState, from: number, to: number, markName: string, who: Suggester): Transaction {
  const tr = state.tr;
  const style = STYLE_OF_MARK[markName];
  const styleType = state.schema.marks[markName];
  if (!style || !styleType || from >= to) return tr;
  const on = !state.doc.rangeHasMark(from, to, styleType) || !everyCharacterHas(state.doc, from, to, markName);
  const attrs: SuggestionAttrs = { id: who.newId(), kind: 'style', author: who.author, at: who.now(), style, on };
  tr.addMark(from, to, suggestionType(state).create(attrs));
  return tr;
}

function everyCharacterHas(doc: ProseNode, from: number, to: number, markName: string): boolean {
  let every = true;
  doc.nodesBetween(from, to, (node) => {
    if (node.isText && !node.marks.some((m) => m.type.name === markName)) every = false;
    return !node.isText;
  });
  return every;
}

/**
 * Accepts or rejects every suggestion `which` picks: an insertion accepted
 * or a deletion rejected leaves its words unmarked; an insertion rejected
 * or a deletion accepted takes them out; a style accepted is put on or
 * taken off. Nothing happens to any other suggestion.
 */
export function settleSuggestions(state: EditorState, which: (s: SuggestionAttrs) => boolean, accept: boolean): Transaction {
  const tr = state.tr;
  const type = suggestionType(state);
  const removing: [number, number][] = [];
  state.doc.descendants((node, pos) => {
    if (!node.isText) return true;
    const end = pos + node.nodeSize;
    let goes = false;
    for (const mark of node.marks) {
      if (mark.type !== type) continue;
      const s = mark.attrs as SuggestionAttrs;
      if (!which(s)) continue;
      tr.removeMark(pos, end, mark);
      goes ||= (s.kind === 'insertion' && !accept) || (s.kind === 'deletion' && accept);
      const styleType = s.kind === 'style' && accept ? state.schema.marks[MARK_OF_STYLE[s.style ?? ''] ?? ''] : undefined;
      if (styleType) {
        if (s.on !== false) tr.addMark(pos, end, styleType.create());
        else tr.removeMark(pos, end, styleType);
      }
    }
    // Once, however many of its suggestions take it out.
    if (goes) removing.push([pos, end]);
    return false;
  });
  for (const [start, end] of removing.reverse()) tr.delete(start, end);
  return tr;
}

/** Where the note `id` stands in `doc` (open or resolved): from its first word to its last, or `undefined` when it is on none. */
export function noteRange(doc: ProseNode, id: string): { from: number; to: number } | undefined {
  let range: { from: number; to: number } | undefined;
  doc.descendants((node, pos) => {
    if (!node.isText) return true;
    const mark = node.marks.find((m) => m.type.name === 'note');
    if (mark && `${String(mark.attrs.ids)} ${String(mark.attrs.resolved)}`.split(' ').includes(id)) {
      range = { from: range?.from ?? pos, to: pos + node.nodeSize };
    }
    return false;
  });
  return range;
}

/** Changes the notes on the text of from..to: `change` is given each run's open and resolved note ids to change. */
function changeNotes(state: EditorState, from: number, to: number, change: (open: Set<string>, resolved: Set<string>) => boolean): Transaction {
  const tr = state.tr;
  const type = state.schema.marks.note;
  const idsOf = (mark: Mark | undefined, attr: string) => new Set(String(mark?.attrs[attr] ?? '').split(' ').filter(Boolean));
  state.doc.nodesBetween(from, to, (node, pos) => {
    if (!node.isText) return true;
    const start = Math.max(pos, from);
    const end = Math.min(pos + node.nodeSize, to);
    const had = node.marks.find((m) => m.type === type);
    const open = idsOf(had, 'ids');
    const resolved = idsOf(had, 'resolved');
    if (!change(open, resolved)) return false;
    if (had) tr.removeMark(start, end, type);
    if (open.size || resolved.size) tr.addMark(start, end, type.create({ ids: [...open].sort().join(' '), resolved: [...resolved].sort().join(' ') }));
    return false;
  });
  return tr;
}

/** Puts the note `id` on the selected words, beside any note already there. */
export function addNote(state: EditorState, from: number, to: number, id: string): Transaction {
  return changeNotes(state, from, to, (open) => {
    open.add(id);
    return true;
  });
}

/** Resolves the note `id` (it stays on its words, hidden), or opens it again. */
export function resolveNote(state: EditorState, id: string, resolve = true): Transaction {
  return changeNotes(state, 0, state.doc.content.size, (open, resolved) => {
    const [from, into] = resolve ? [open, resolved] : [resolved, open];
    if (!from.delete(id)) return false;
    into.add(id);
    return true;
  });
}

/** A suggestion as the review panel lists it: its words, in the order they stand. */
export interface SuggestionInText extends SuggestionAttrs {
  words: string;
}

/** A note as the review panel lists it: resolved when none of its words has it open. */
export interface NoteInText {
  id: string;
  words: string;
  resolved: boolean;
}

/** The suggestions and notes in a document, each once, in the order their first words stand. */
export function inText(doc: ProseNode): { suggestions: SuggestionInText[]; notes: NoteInText[] } {
  const suggestions = new Map<string, SuggestionInText>();
  const notes = new Map<string, NoteInText>();
  let lastBlock = -1;
  doc.descendants((node, pos) => {
    if (!node.isText) return true;
    const block = doc.resolve(pos).before(1);
    const gap = block !== lastBlock && lastBlock !== -1 ? ' ' : '';
    lastBlock = block;
    for (const mark of node.marks) {
      if (mark.type.name === 'suggestion') {
        const s = mark.attrs as SuggestionAttrs;
        const had = suggestions.get(s.id);
        if (had) had.words += (had.words ? gap : '') + node.text;
        else suggestions.set(s.id, { ...s, words: node.text ?? '' });
      } else if (mark.type.name === 'note') {
        for (const [attr, isResolved] of [
          ['ids', false],
          ['resolved', true],
        ] as const) {
          for (const id of String(mark.attrs[attr] ?? '').split(' ').filter(Boolean)) {
            const had = notes.get(id);
            if (had) {
              had.words += (had.words ? gap : '') + node.text;
              had.resolved &&= isResolved;
            } else notes.set(id, { id, words: node.text ?? '', resolved: isResolved });
          }
        }
      }
    }
    return false;
  });
  return { suggestions: [...suggestions.values()], notes: [...notes.values()] };
}

/** What a suggestion would do, in words ("Insert", "Delete", "Bold", "Not bold"). */
export function describeSuggestion(s: SuggestionAttrs): string {
  if (s.kind === 'insertion') return 'Insert';
  if (s.kind === 'deletion') return 'Delete';
  const name = (MARK_OF_STYLE[s.style ?? ''] ?? String(s.style ?? '').toLowerCase()) || 'style';
  const styled = name.charAt(0).toUpperCase() + name.slice(1);
  return s.on === false ? `Not ${name}` : styled;
}

/** How many UTF-16 units the character before (`back`) or after `pos` takes: 2 for an emoji or another character past the BMP, else 1. */
function widthAt(doc: ProseNode, pos: number, back: boolean): number {
  const $pos = doc.resolve(pos);
  const pair = back ? doc.textBetween(Math.max($pos.start(), pos - 2), pos) : doc.textBetween(pos, Math.min($pos.end(), pos + 2));
  const surrogates = pair.length === 2 && /^[\uD800-\uDBFF][\uDC00-\uDFFF]$/.test(pair);
  return surrogates ? 2 : 1;
}

/** Takes the note `id` off its words, open or resolved (a note whose thread could not be started). */
export function removeNote(state: EditorState, id: string): Transaction {
  return changeNotes(state, 0, state.doc.content.size, (open, resolved) => open.delete(id) || resolved.delete(id));
}

export const suggestKey = new PluginKey<boolean>('suggest-edits');

/** Whether the editor is in Suggest mode. */
export const isSuggesting = (state: EditorState): boolean => suggestKey.getState(state) ?? false;

/** Turns Suggest mode on or off. */
export const setSuggesting = (state: EditorState, on: boolean): Transaction => state.tr.setMeta(suggestKey, on);

/**
 * Suggest mode: while it is on, text typed or pasted is a suggested
 * insertion, Backspace and Delete suggest deletions, and Ctrl+B, I and U
 * suggest a style. Paragraph breaks, lists, headings and links apply as
 * usual (a suggestion is on characters, as in the server's text model).
 */
export const SuggestEdits = Extension.create<{ suggester: () => Suggester }>({
  name: 'suggestEdits',
  // Before every keymap (Backspace's, Ctrl+B's), which would apply the edit outright.
  priority: 10000,
  addOptions() {
    return { suggester: () => ({ author: '', newId: () => crypto.randomUUID(), now: () => new Date().toISOString() }) };
  },
  addProseMirrorPlugins() {
    const who = () => this.options.suggester();
    return [
      new Plugin<boolean>({
        key: suggestKey,
        state: {
          init: () => false,
          apply: (tr, on) => (tr.getMeta(suggestKey) as boolean | undefined) ?? on,
        },
        props: {
          handleTextInput(view, from, to, text) {
            if (!isSuggesting(view.state)) return false;
            view.dispatch(suggestInsertion(view.state, from, to, text, who()));
            return true;
          },
          handlePaste(view, _event, slice) {
            if (!isSuggesting(view.state)) return false;
            const text = slice.content.textBetween(0, slice.content.size, ' ');
            const { from, to } = view.state.selection;
            if (text) view.dispatch(suggestInsertion(view.state, from, to, text, who()));
            return true;
          },
          handleDOMEvents: {
            // Cut copies the words and suggests their deletion.
            cut(view, event) {
              const { from, to, empty } = view.state.selection;
              if (!isSuggesting(view.state) || empty) return false;
              event.preventDefault();
              event.clipboardData?.setData('text/plain', view.state.doc.textBetween(from, to, '\n'));
              const tr = suggestDeletion(view.state, from, to, who());
              view.dispatch(tr.setSelection(TextSelection.create(tr.doc, tr.mapping.map(from))));
              return true;
            },
          },
          // Dragging words to move them is off while suggesting: a move would apply at once.
          handleDrop(view, event) {
            if (!isSuggesting(view.state)) return false;
            event.preventDefault();
            return true;
          },
          handleKeyDown(view, event) {
            if (!isSuggesting(view.state)) return false;
            const { state } = view;
            const { from, to, empty } = state.selection;
            const mod = event.ctrlKey || event.metaKey;
            const styleKey = { b: 'bold', i: 'italic', u: 'underline' }[event.key.toLowerCase()];
            if (mod && !event.altKey && styleKey) {
              view.dispatch(suggestStyle(state, from, to, styleKey, who()));
              return true;
            }
            if (event.key === 'Enter' && !empty) {
              // The selected words are suggested for deletion; the paragraph then breaks where they end, as usual.
              const tr = suggestDeletion(state, from, to, who());
              view.dispatch(tr.setSelection(TextSelection.create(tr.doc, tr.mapping.map(to))));
              return false;
            }
            if (event.key !== 'Backspace' && event.key !== 'Delete') return false;
            if (!empty) {
              const tr = suggestDeletion(state, from, to, who());
              view.dispatch(tr.setSelection(TextSelection.create(tr.doc, tr.mapping.map(from))));
              return true;
            }
            const back = event.key === 'Backspace';
            const $at = state.selection.$from;
            // Past the words already suggested for deletion, to the next one that is not.
            let pos = from;
            for (;;) {
              const node = back ? state.doc.resolve(pos).nodeBefore : state.doc.resolve(pos).nodeAfter;
              if (!node?.isText || (back ? pos <= $at.start() : pos >= $at.end())) {
                // Nothing left in the paragraph to suggest deleting: at its edge, Backspace and Delete join paragraphs as usual.
                if (pos === from) return false;
                view.dispatch(state.tr.setSelection(TextSelection.create(state.doc, pos)));
                return true;
              }
              if (!ofKind(node, 'deletion')) break;
              pos += back ? -widthAt(state.doc, pos, true) : widthAt(state.doc, pos, false);
            }
            const width = widthAt(state.doc, pos, back);
            const [start, end] = back ? [pos - width, pos] : [pos, pos + width];
            const tr = suggestDeletion(state, start, end, who());
            const mapped = tr.mapping.map(back ? start : end, back ? -1 : 1);
            view.dispatch(tr.setSelection(TextSelection.create(tr.doc, mapped)));
            return true;
          },
        },
      }),
    ];
  },
});

/** How many suggested edits and open notes a body's HTML holds, each counted once (for lists, which carry the HTML). */
export function reviewCounts(html: string): { suggestions: number; notes: number } {
  // Most bodies hold neither, and are not parsed for them.
  if (!html.includes('data-suggestion') && !html.includes('data-notes')) return { suggestions: 0, notes: 0 };
  const { suggestions, notes } = reviewOf(html);
  return { suggestions: suggestions.length, notes: notes.filter((n) => !n.resolved).length };
}

/** "2 suggested edits · 1 open note", or '' for a body with neither. */
export function reviewCountWords(html: string): string {
  const { suggestions, notes } = reviewCounts(html);
  const said = [];
  if (suggestions) said.push(suggestions === 1 ? '1 suggested edit' : `${suggestions} suggested edits`);
  if (notes) said.push(notes === 1 ? '1 open note' : `${notes} open notes`);
  return said.join(' · ');
}

/** A body's suggested edits and notes read from its HTML, each with its words (for comparing versions). */
export function reviewOf(html: string): { suggestions: SuggestionInText[]; notes: NoteInText[] } {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const suggestions = new Map<string, SuggestionInText>();
  const notes = new Map<string, NoteInText>();
  for (const el of Array.from(doc.querySelectorAll<HTMLElement>('[data-suggestion]'))) {
    const id = el.getAttribute('data-suggestion') ?? '';
    const had = suggestions.get(id);
    if (had) {
      had.words += el.textContent ?? '';
      continue;
    }
    const tag = el.tagName.toLowerCase();
    const kind: SuggestionKind = tag === 'ins' ? 'insertion' : tag === 'del' ? 'deletion' : 'style';
    suggestions.set(id, {
      id,
      kind,
      author: el.getAttribute('data-author') ?? '',
      at: el.getAttribute('data-at') ?? '',
      style: el.getAttribute('data-style') ?? undefined,
      on: kind === 'style' ? el.getAttribute('data-on') !== 'false' : undefined,
      words: el.textContent ?? '',
    });
  }
  for (const el of Array.from(doc.querySelectorAll<HTMLElement>('[data-notes], [data-resolved-notes]'))) {
    for (const [attr, resolved] of [
      ['data-notes', false],
      ['data-resolved-notes', true],
    ] as const) {
      for (const id of (el.getAttribute(attr) ?? '').split(' ').filter(Boolean)) {
        const had = notes.get(id);
        if (had) {
          had.words += el.textContent ?? '';
          had.resolved &&= resolved;
        } else notes.set(id, { id, words: el.textContent ?? '', resolved });
      }
    }
  }
  return { suggestions: [...suggestions.values()], notes: [...notes.values()] };
}

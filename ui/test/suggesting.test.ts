// @vitest-environment jsdom
// Suggested edits and notes made in the editor, on a real TipTap editor:
// typing, deleting and styling as suggestions, accepting and rejecting them
// one at a time or by author, notes on selected words, and the review
// panel's lists.

import { afterEach, describe, expect, it } from 'vitest';
import { Editor } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import { NoteMark, SuggestionMark } from '../src/annotation-marks';
import {
  addNote,
  describeSuggestion,
  inText,
  resolveNote,
  reviewCountWords,
  reviewOf,
  settleSuggestions,
  suggestDeletion,
  suggestInsertion,
  suggestStyle,
  setSuggesting,
  SuggestEdits,
  type Suggester,
} from '../src/suggesting';

/** Every editor a test made, destroyed after it (a live one's timers would outlast the test's document). */
const made: Editor[] = [];
afterEach(() => {
  made.splice(0).forEach((e) => e.destroy());
});

function editorWith(html: string): Editor {
  const e = new Editor({ extensions: [StarterKit, NoteMark, SuggestionMark], content: html });
  made.push(e);
  return e;
}

/** An editor in Suggest mode, suggesting as `author`. */
function suggestingEditor(html: string, author: string): Editor {
  const who = suggester(author);
  const e = new Editor({ extensions: [StarterKit, NoteMark, SuggestionMark, SuggestEdits.configure({ suggester: () => who })], content: html });
  made.push(e);
  e.view.dispatch(setSuggesting(e.state, true));
  return e;
}

/** Presses `key` in the editor as the keyboard would (through the plugins' key handlers). */
function press(e: Editor, key: string): boolean {
  const event = new KeyboardEvent('keydown', { key });
  return e.view.someProp('handleKeyDown', (handle) => handle(e.view, event)) ?? false;
}

function suggester(author: string): Suggester {
  let n = 0;
  return { author, newId: () => `${author}-${++n}`, now: () => '2026-11-28T10:00:00Z' };
}

/** Where `words` start in the editor's document (the first paragraph's text, whatever marks split it). */
function at(editor: Editor, words: string): number {
  const text = editor.state.doc.textBetween(0, editor.state.doc.content.size, '\n');
  const index = text.indexOf(words);
  if (index === -1) throw new Error(`no "${words}"`);
  return index + 1;
}

describe('suggesting in the editor', () => {
  it('types a word as one suggested insertion, with its author and time', () => {
    const e = editorWith('<p>The council met.</p>');
    const gil = suggester('Gil Desk');
    let pos = at(e, ' met');
    for (const ch of ' city') {
      e.view.dispatch(suggestInsertion(e.state, pos, pos, ch, gil));
      pos += 1;
    }
    expect(e.getText()).toBe('The council city met.');
    const { suggestions } = inText(e.state.doc);
    expect(suggestions).toEqual([{ id: 'Gil Desk-1', kind: 'insertion', author: 'Gil Desk', at: '2026-11-28T10:00:00Z', style: null, on: null, words: ' city' }]);
    expect(e.getHTML()).toContain('<ins data-suggestion="Gil Desk-1" data-author="Gil Desk" data-at="2026-11-28T10:00:00Z"> city</ins>');
  });

  it('marks words for deletion instead of deleting them, and deletes its own suggested words outright', () => {
    const e = editorWith('<p>The city council met today.</p>');
    const gil = suggester('Gil Desk');
    const from = at(e, ' today');
    e.view.dispatch(suggestDeletion(e.state, from, from + ' today'.length, gil));
    expect(e.getText()).toBe('The city council met today.');
    expect(inText(e.state.doc).suggestions.map((s) => [s.kind, s.words])).toEqual([['deletion', ' today']]);

    const pos = at(e, ' met');
    e.view.dispatch(suggestInsertion(e.state, pos, pos, ' quietly', gil));
    const own = at(e, ' quietly');
    e.view.dispatch(suggestDeletion(e.state, own, own + ' quietly'.length, gil));
    expect(e.getText()).toBe('The city council met today.');
    expect(inText(e.state.doc).suggestions.map((s) => s.kind)).toEqual(['deletion']);
  });

  it('replaces selected words with a deletion and an insertion after it', () => {
    const e = editorWith('<p>The mayor spoke.</p>');
    const from = at(e, 'mayor');
    e.view.dispatch(suggestInsertion(e.state, from, from + 5, 'governor', suggester('Gil Desk')));
    expect(e.getText()).toBe('The mayorgovernor spoke.');
    expect(inText(e.state.doc).suggestions.map((s) => [s.kind, s.words])).toEqual([
      ['deletion', 'mayor'],
      ['insertion', 'governor'],
    ]);
  });

  it('accepts and rejects one suggestion at a time, leaving the others', () => {
    const e = editorWith('<p>The mayor spoke on Friday.</p>');
    const gil = suggester('Gil Desk');
    const pos = at(e, ' spoke');
    e.view.dispatch(suggestInsertion(e.state, pos, pos, ' briefly', gil));
    const fri = at(e, ' on Friday');
    e.view.dispatch(suggestDeletion(e.state, fri, fri + ' on Friday'.length, gil));
    const mayor = at(e, 'mayor');
    e.view.dispatch(suggestStyle(e.state, mayor, mayor + 5, 'bold', gil));
    const [insertion, deletion, style] = ['insertion', 'deletion', 'style'].map((k) => inText(e.state.doc).suggestions.find((s) => s.kind === k)!);
    expect(describeSuggestion(style)).toBe('Bold');

    e.view.dispatch(settleSuggestions(e.state, (s) => s.id === insertion.id, false));
    expect(e.getText()).toBe('The mayor spoke on Friday.');
    e.view.dispatch(settleSuggestions(e.state, (s) => s.id === deletion.id, true));
    expect(e.getText()).toBe('The mayor spoke.');
    e.view.dispatch(settleSuggestions(e.state, (s) => s.id === style.id, true));
    expect(e.getHTML()).toBe('<p>The <strong>mayor</strong> spoke.</p>');
    expect(inText(e.state.doc).suggestions).toEqual([]);
  });

  it("settles all of one author's suggestions and none of another's", () => {
    const e = editorWith('<p>One two three.</p>');
    const gil = suggester('Gil Desk');
    const ana = suggester('Ana Copy');
    const two = at(e, ' two');
    e.view.dispatch(suggestDeletion(e.state, two, two + 4, gil));
    const three = at(e, 'three');
    e.view.dispatch(suggestInsertion(e.state, three, three, 'and ', ana));
    const end = at(e, '.');
    e.view.dispatch(suggestInsertion(e.state, end, end, ' four', gil));
    e.view.dispatch(settleSuggestions(e.state, (s) => s.author === 'Gil Desk', true));
    expect(e.getText()).toBe('One and three four.');
    expect(inText(e.state.doc).suggestions.map((s) => s.author)).toEqual(['Ana Copy']);
  });

  it('suggests taking a style off where every selected word has it, and rejecting it keeps the style', () => {
    const e = editorWith('<p>A <em>quoted</em> word.</p>');
    const from = at(e, 'quoted');
    e.view.dispatch(suggestStyle(e.state, from, from + 6, 'italic', suggester('Gil Desk')));
    const [s] = inText(e.state.doc).suggestions;
    expect([s.on, describeSuggestion(s)]).toEqual([false, 'Not italic']);
    e.view.dispatch(settleSuggestions(e.state, () => true, false));
    expect(e.getHTML()).toBe('<p>A <em>quoted</em> word.</p>');
  });

  it('puts a note on selected words beside another, lists each with its words, resolves one and opens it again', () => {
    const e = editorWith('<p>The budget rose by 4%.</p>');
    const budget = at(e, 'budget rose');
    e.view.dispatch(addNote(e.state, budget, budget + 'budget rose'.length, 'n1'));
    const rose = at(e, 'rose by 4%');
    e.view.dispatch(addNote(e.state, rose, rose + 'rose by 4%'.length, 'n2'));
    expect(inText(e.state.doc).notes).toEqual([
      { id: 'n1', words: 'budget rose', resolved: false },
      { id: 'n2', words: 'rose by 4%', resolved: false },
    ]);
    expect(e.getHTML()).toContain('<span data-notes="n1 n2">rose</span>');
    e.view.dispatch(resolveNote(e.state, 'n1'));
    expect(inText(e.state.doc).notes).toEqual([
      { id: 'n1', words: 'budget rose', resolved: true },
      { id: 'n2', words: 'rose by 4%', resolved: false },
    ]);
    const html = e.getHTML();
    expect(html).toBe('<p>The <span data-resolved-notes="n1">budget </span><span data-notes="n2" data-resolved-notes="n1">rose</span><span data-notes="n2"> by 4%</span>.</p>');
    expect(reviewCountWords(html)).toBe('1 open note');
    expect(reviewOf(html).notes).toEqual([
      { id: 'n1', words: 'budget rose', resolved: true },
      { id: 'n2', words: 'rose by 4%', resolved: false },
    ]);
    // Opened from its HTML, the resolved note is still there, and reopens.
    const again = editorWith(html);
    again.view.dispatch(resolveNote(again.state, 'n1', false));
    expect(inText(again.state.doc).notes.map((n) => [n.id, n.resolved])).toEqual([
      ['n1', false],
      ['n2', false],
    ]);
  });

  it('takes a word out once when two of its suggestions both take it out', () => {
    const e = editorWith('<p>One two three.</p>');
    const two = at(e, 'two');
    e.view.dispatch(suggestDeletion(e.state, two, two + 3, suggester('Gil Desk')));
    // The same words suggested for deletion again under another id (as two offline sides may).
    e.view.dispatch(e.state.tr.addMark(two, two + 3, e.state.schema.marks.suggestion.create({ id: 'other', kind: 'deletion', author: 'Gil Desk', at: '' })));
    expect(inText(e.state.doc).suggestions.map((s) => s.id)).toEqual(['Gil Desk-1', 'other']);
    e.view.dispatch(settleSuggestions(e.state, (s) => s.author === 'Gil Desk', true));
    expect(e.getText()).toBe('One  three.');
  });

  it('suggests deleting a whole emoji with Backspace, never half of one', () => {
    const e = suggestingEditor('<p>Go 🚀 now</p>', 'Gil Desk');
    const after = at(e, ' now');
    e.commands.setTextSelection(after);
    expect(press(e, 'Backspace')).toBe(true);
    expect(inText(e.state.doc).suggestions.map((s) => [s.kind, s.words])).toEqual([['deletion', '🚀']]);
    expect(e.state.selection.from).toBe(after - 2);
    // Its own inserted emoji goes whole, too.
    e.commands.setTextSelection(e.state.doc.content.size - 1);
    e.view.dispatch(suggestInsertion(e.state, e.state.selection.from, e.state.selection.from, '🎉', suggester('Gil Desk')));
    expect(press(e, 'Backspace')).toBe(true);
    expect(e.getText()).toBe('Go 🚀 now');
  });

  it('suggests deleting the selected words before Enter breaks the paragraph after them', () => {
    const e = suggestingEditor('<p>Keep this and that.</p>', 'Gil Desk');
    const from = at(e, ' and');
    e.commands.setTextSelection({ from, to: from + ' and'.length });
    expect(press(e, 'Enter')).toBe(true);
    expect(inText(e.state.doc).suggestions.map((s) => [s.kind, s.words])).toEqual([['deletion', ' and']]);
    expect(e.getHTML()).toBe('<p>Keep this<del data-suggestion="Gil Desk-1" data-author="Gil Desk" data-at="2026-11-28T10:00:00Z"> and</del></p><p> that.</p>');
  });
});

// In-content notes and suggested edits as the editor holds them: two marks,
// so that opening and saving a story keeps them on their words, in the HTML
// the server writes (`<span data-notes>`, `<ins>`/`<del>`/`<span>` with
// `data-suggestion`) and in Draft.js raw content (src/draftjs.ts, which
// carries them in each character's one entity as the server does:
// crates/text/src/merge/annotated.rs).
//
// A note mark holds the ids of every note on its words (space apart), so a
// word under two notes carries one mark; resolved notes' ids ride in its
// `resolved` (`<span data-resolved-notes>`), on their words but not shown. A suggestion mark holds one
// suggestion; words under two suggestions carry two (`excludes: ''`).

import { Mark } from '@tiptap/core';

/** What a suggestion would do to its words. */
export type SuggestionKind = 'insertion' | 'deletion' | 'style';

/** A suggested edit as the mark holds it (and raw content's entity data). */
export interface SuggestionAttrs {
  id: string;
  kind: SuggestionKind;
  author: string;
  at: string;
  /** For a style change: the Draft.js style, and whether it is put on. */
  style?: string;
  on?: boolean;
}

/** The tag a suggestion is written in. */
function tagOf(kind: SuggestionKind): string {
  return kind === 'insertion' ? 'ins' : kind === 'deletion' ? 'del' : 'span';
}

/** The suggestion an element with `data-suggestion` stands for, or `false`. */
function suggestionOf(element: HTMLElement, kind: SuggestionKind): SuggestionAttrs | false {
  const id = element.getAttribute('data-suggestion');
  if (!id) return false;
  const attrs: SuggestionAttrs = {
    id,
    kind,
    author: element.getAttribute('data-author') ?? '',
    at: element.getAttribute('data-at') ?? '',
  };
  if (kind === 'style') {
    const style = element.getAttribute('data-style');
    if (!style) return false;
    attrs.style = style;
    attrs.on = element.getAttribute('data-on') !== 'false';
  }
  return attrs;
}

export const SuggestionMark = Mark.create({
  name: 'suggestion',
  // Above strike-through's `<del>` and every other mark's rules.
  priority: 1000,
  excludes: '',
  inclusive: false,

  addAttributes() {
    return {
      id: { default: '' },
      kind: { default: 'insertion' },
      author: { default: '' },
      at: { default: '' },
      style: { default: null },
      on: { default: null },
    };
  },

  parseHTML() {
    return (['insertion', 'deletion', 'style'] as const).map((kind) => ({
      tag: `${tagOf(kind)}[data-suggestion]`,
      getAttrs: (element: HTMLElement) => suggestionOf(element, kind),
    }));
  },

  renderHTML({ mark }) {
    const attrs = mark.attrs as SuggestionAttrs;
    const html: Record<string, string> = { 'data-suggestion': attrs.id };
    if (attrs.kind === 'style') {
      html['data-style'] = String(attrs.style ?? '');
      html['data-on'] = String(attrs.on !== false);
    }
    html['data-author'] = attrs.author;
    html['data-at'] = attrs.at;
    return [tagOf(attrs.kind), html, 0];
  },
});

export const NoteMark = Mark.create({
  name: 'note',
  priority: 1000,
  inclusive: false,

  addAttributes() {
    return { ids: { default: '' }, resolved: { default: '' } };
  },

  parseHTML() {
    const noted = (element: HTMLElement) => {
      const ids = (element.getAttribute('data-notes') ?? '').trim();
      const resolved = (element.getAttribute('data-resolved-notes') ?? '').trim();
      return ids || resolved ? { ids, resolved } : false;
    };
    return [
      { tag: 'span[data-notes]', getAttrs: noted },
      { tag: 'span[data-resolved-notes]', getAttrs: noted },
    ];
  },

  renderHTML({ mark }) {
    const html: Record<string, string> = {};
    if (mark.attrs.ids) html['data-notes'] = String(mark.attrs.ids);
    if (mark.attrs.resolved) html['data-resolved-notes'] = String(mark.attrs.resolved);
    return ['span', html, 0];
  },
});

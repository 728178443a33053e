// Where a search's words were found in a story: a short stretch of its text
// around the first match, cut into plain and matched parts, so the list can
// mark the words without ever reading the text as markup.

/** A piece of a snippet: text, and whether it is one of the searched words. */
export interface SnippetPart {
  text: string;
  matched: boolean;
}

/** How many characters of context a snippet shows on each side of the first match. */
const CONTEXT = 60;

/** The searched words, longest first, so a longer word is marked whole. */
export function searchedWords(keywords: string): string[] {
  return [...new Set(keywords.toLowerCase().split(/\s+/).filter(Boolean))].sort((a, b) => b.length - a.length);
}

/**
 * The stretch of `text` around the first of `words` (any case), with every
 * searched word in it marked; `undefined` when none is in the text.
 */
export function snippet(text: string, words: string[]): SnippetPart[] | undefined {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  const firsts = words.map((w) => lower.indexOf(w)).filter((i) => i >= 0);
  if (firsts.length === 0) return undefined;
  const first = Math.min(...firsts);
  let start = Math.max(0, first - CONTEXT);
  let end = Math.min(flat.length, first + CONTEXT * 2);
  // Whole words at the cut edges.
  if (start > 0) start = flat.indexOf(' ', start) + 1 || start;
  if (end < flat.length) end = Math.max(flat.lastIndexOf(' ', end), first + 1);
  const stretch = flat.slice(start, end);
  const parts: SnippetPart[] = [];
  if (start > 0) parts.push({ text: '…', matched: false });
  const pattern = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
  let at = 0;
  for (const found of stretch.matchAll(pattern)) {
    const index = found.index ?? 0;
    if (index > at) parts.push({ text: stretch.slice(at, index), matched: false });
    parts.push({ text: found[0], matched: true });
    at = index + found[0].length;
  }
  if (at < stretch.length) parts.push({ text: stretch.slice(at), matched: false });
  if (end < flat.length) parts.push({ text: '…', matched: false });
  return parts;
}

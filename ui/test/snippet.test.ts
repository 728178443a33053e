// The search snippet: the text around the first match, every searched word marked.

import { describe, expect, it } from 'vitest';
import { searchedWords, snippet } from '../src/snippet';

const joined = (parts: ReturnType<typeof snippet>) =>
  (parts ?? []).map((p) => (p.matched ? `[${p.text}]` : p.text)).join('');

describe('snippet', () => {
  it('marks every searched word, in any case, around the first match', () => {
    const parts = snippet('The Council voted. The council met again on Tuesday.', searchedWords('council tuesday'));
    expect(joined(parts)).toBe('The [Council] voted. The [council] met again on [Tuesday].');
  });

  it('cuts a long text to whole words around the match', () => {
    const long = `${'word '.repeat(40)}harbour strike ${'tail '.repeat(40)}`;
    const text = joined(snippet(long, searchedWords('strike')));
    expect(text.startsWith('…')).toBe(true);
    expect(text.endsWith('…')).toBe(true);
    expect(text).toContain('harbour [strike]');
    expect(text.length).toBeLessThan(200);
    expect(text).not.toMatch(/…\S*wor\b|\bwo…/);
  });

  it('says nothing when no word is in the text, and takes words literally', () => {
    expect(snippet('Nothing here.', ['harbour'])).toBeUndefined();
    expect(joined(snippet('Fees rise (5%) today.', searchedWords('(5%)')))).toBe('Fees rise [(5%)] today.');
  });
});

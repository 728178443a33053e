import { describe, expect, it } from 'vitest';
import { characters, headlineLimit, headlineState, words } from '../src/editor-settings';

describe('counts and headline limits', () => {
  it('counts words and characters as a reader would', () => {
    expect(words('  Water rises 🌊 at the north bank — again ')).toBe(7);
    expect(words('')).toBe(0);
    expect(characters('Flut 🌊')).toBe(6);
  });

  it('warns near the limit and past it, per type', () => {
    expect(headlineLimit('article')).toBe(110);
    expect(headlineLimit('media')).toBe(200);
    expect(headlineLimit('newsletter')).toBe(110);
    expect(headlineState('x'.repeat(98), 'article')).toBe('fits');
    expect(headlineState('x'.repeat(99), 'article')).toBe('near');
    expect(headlineState('x'.repeat(110), 'article')).toBe('near');
    expect(headlineState('x'.repeat(111), 'article')).toBe('over');
    expect(headlineState('x'.repeat(150), 'media')).toBe('fits');
  });
});

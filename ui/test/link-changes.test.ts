// The versions screen's comparison of authors and tags: who was added, who
// was removed, and a byline whose order alone changed.

import { describe, expect, it } from 'vitest';
import { linkChanges, sameLinks } from '../src/link-changes';

const ann = { uuid: 'a', name: 'Ann' };
const bob = { uuid: 'b', name: 'Bob' };
const cy = { uuid: 'c', name: 'Cy' };

describe('linkChanges', () => {
  it('names who was added and who was removed', () => {
    const { added, removed, reordered } = linkChanges([ann, bob], [ann, cy]);
    expect(added).toEqual([cy]);
    expect(removed).toEqual([bob]);
    expect(reordered).toBe(false);
  });

  it('sees a byline whose order alone changed', () => {
    expect(linkChanges([ann, bob], [bob, ann])).toEqual({ added: [], removed: [], reordered: true });
    expect(sameLinks([ann, bob], [bob, ann])).toBe(false);
  });

  it('does not count an addition or a removal as a change of order', () => {
    expect(linkChanges([ann, bob], [ann, cy, bob]).reordered).toBe(false);
    expect(linkChanges([ann, bob, cy], [ann, cy]).reordered).toBe(false);
  });

  it('finds nothing when the lists are the same', () => {
    expect(sameLinks([ann, bob], [ann, bob])).toBe(true);
    expect(sameLinks([], [])).toBe(true);
  });
});

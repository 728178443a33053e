// What changed in a story's authors or tags between a version and the page
// now, for the versions screen: a byline is a list whose members and order
// both matter to a journalist, so it is compared by who is in it, not as text.

/** An author or tag as a version or the item embeds it. */
export type Linked = { uuid: string; name: string };

/** Which of `before` are gone from `after`, which are new in it, and whether those in both changed order. */
export function linkChanges(before: Linked[], after: Linked[]) {
  const had = new Set(before.map((l) => l.uuid));
  const has = new Set(after.map((l) => l.uuid));
  const added = after.filter((l) => !had.has(l.uuid));
  const removed = before.filter((l) => !has.has(l.uuid));
  const kept = (list: Linked[], other: Set<string>) =>
    list
      .filter((l) => other.has(l.uuid))
      .map((l) => l.uuid)
      .join(' ');
  return { added, removed, reordered: kept(before, has) !== kept(after, had) };
}

/** Whether two lists hold the same authors or tags in the same order. */
export function sameLinks(before: Linked[], after: Linked[]): boolean {
  const { added, removed, reordered } = linkChanges(before, after);
  return added.length === 0 && removed.length === 0 && !reordered;
}

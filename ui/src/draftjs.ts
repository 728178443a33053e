// Draft.js raw content <-> the editor's document, both ways.
//
// The service stores a draft's body twice: as HTML (`content`) and as Draft.js
// raw content (`content_raw`: `blocks` and `entityMap`), the form the CMS's
// other clients read. The editor (TipTap, on ProseMirror) works on its own
// JSON document; these two functions convert between them without loss for
// what both can express: paragraphs, headings, lists (nested), quotes, code
// blocks, bold, italic, underline, strike-through, code, links and photos
// (a photo is Draft.js's `atomic` block whose one character carries an
// `IMAGE` entity, `{src, alt}`, as `AtomicBlockUtils.insertAtomicBlock`
// makes it and draft-convert writes it as `<figure><img></figure>`). Offsets
// and lengths count Unicode code points, as Draft.js's `convertToRaw` writes
// them, so an emoji counts as one (not as its two JavaScript string units).
// Notes and suggested edits (src/annotation-marks.ts) ride in each
// character's one entity, as the server writes them.
// Each block's Draft.js `key` is the editor block's own (`blockKey`, which
// src/block-keys.ts keeps with the block as it is edited and moved), both
// ways, so the server's merge knows a block by its key in every version.

/** A ProseMirror node as JSON (what TipTap's `getJSON()` gives). */
export interface PmNode {
  type: string;
  attrs?: Record<string, unknown>;
  content?: PmNode[];
  text?: string;
  marks?: PmMark[];
}

export interface PmMark {
  type: string;
  attrs?: Record<string, unknown>;
}

export interface RawRange {
  offset: number;
  length: number;
}

export interface RawBlock {
  key: string;
  text: string;
  type: string;
  depth: number;
  inlineStyleRanges: (RawRange & { style: string })[];
  entityRanges: (RawRange & { key: number })[];
  data: Record<string, unknown>;
}

export interface RawEntity {
  type: string;
  mutability: 'MUTABLE' | 'IMMUTABLE' | 'SEGMENTED';
  data: Record<string, unknown>;
}

export interface RawContent {
  blocks: RawBlock[];
  entityMap: Record<string, RawEntity>;
}

const STYLE_OF_MARK: Record<string, string> = {
  bold: 'BOLD',
  italic: 'ITALIC',
  underline: 'UNDERLINE',
  strike: 'STRIKETHROUGH',
  code: 'CODE',
};
const MARK_OF_STYLE: Record<string, string> = Object.fromEntries(
  Object.entries(STYLE_OF_MARK).map(([mark, style]) => [style, mark]),
);
const HEADINGS = ['one', 'two', 'three', 'four', 'five', 'six'];

/** The one character of a photo's atomic block (Draft.js's own examples give `insertAtomicBlock` a space). */
export const IMAGE_CHARACTER = ' ';

/** The node attribute that holds a block's Draft.js key. */
export const BLOCK_KEY = 'blockKey';

/** Whether `value` can be a block key (a non-empty string). */
export function isBlockKey(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** The number `n` as five base-36 digits, as Draft.js writes a key. */
export function keyOfNumber(n: number): string {
  return (n % 36 ** 5).toString(36).padStart(5, '0');
}

/**
 * A key for a block that has none (a document that did not come from the
 * editor): made from its place, different from every key in `taken`, the
 * same wherever the same document is read.
 */
export function placeKey(index: number, taken: Set<string>): string {
  let n = ((index + 1) * 2_654_435_761) % 36 ** 5;
  while (taken.has(keyOfNumber(n))) n = (n + 1) % 36 ** 5;
  const key = keyOfNumber(n);
  taken.add(key);
  return key;
}

/**
 * The Draft.js key of each block: its own, unless an earlier block has it
 * or it has none; then a new one no other block has.
 */
function keysOf(flat: Flat[]): string[] {
  const taken = new Set(flat.map((b) => b.key).filter(isBlockKey));
  const used = new Set<string>();
  const keys = flat.map((b) => (isBlockKey(b.key) && !used.has(b.key) ? (used.add(b.key), b.key) : undefined));
  return keys.map((key, index) => key ?? placeKey(index, taken));
}

interface Flat {
  type: string;
  depth: number;
  inline: PmNode[];
  key?: unknown;
}

/** The text blocks of a document, in order, with their Draft.js type and depth. */
function flatten(nodes: PmNode[], into: Flat[], context: { list?: string; depth: number; quote: boolean }): void {
  for (const node of nodes) {
    switch (node.type) {
      case 'image':
        // A photo is a block of its own wherever it stands.
        into.push({ type: 'atomic', depth: 0, inline: [node], key: node.attrs?.[BLOCK_KEY] });
        break;
      case 'paragraph':
        into.push({
          type: context.list ?? (context.quote ? 'blockquote' : 'unstyled'),
          depth: context.list ? context.depth : 0,
          inline: node.content ?? [],
          key: node.attrs?.[BLOCK_KEY],
        });
        break;
      case 'heading': {
        const level = Math.min(Math.max(Number(node.attrs?.level ?? 1), 1), 6);
        into.push({ type: `header-${HEADINGS[level - 1]}`, depth: 0, inline: node.content ?? [], key: node.attrs?.[BLOCK_KEY] });
        break;
      }
      case 'codeBlock':
        into.push({ type: 'code-block', depth: 0, inline: node.content ?? [], key: node.attrs?.[BLOCK_KEY] });
        break;
      case 'blockquote':
        flatten(node.content ?? [], into, { ...context, quote: true });
        break;
      case 'bulletList':
      case 'orderedList': {
        const list = node.type === 'bulletList' ? 'unordered-list-item' : 'ordered-list-item';
        const depth = context.list ? context.depth + 1 : 0;
        for (const item of node.content ?? []) {
          // The item's own paragraph at this depth; nested lists go one deeper.
          flatten(item.content ?? [], into, { list, depth, quote: context.quote });
        }
        break;
      }
      default:
        if (node.content) flatten(node.content, into, context);
    }
  }
}

/** Adds `[start, end)` to the ranges of `name`, joining it to a range it touches. */
function addRange<T extends RawRange>(ranges: T[], make: (offset: number, length: number) => T, same: (r: T) => boolean, start: number, end: number): void {
  const last = [...ranges].reverse().find(same);
  if (last && last.offset + last.length === start) {
    last.length += end - start;
  } else {
    ranges.push(make(start, end - start));
  }
}

/**
 * The one entity a run's marks give its characters, as the server writes
 * it (crates/text/src/merge/annotated.rs): a link's `LINK` entity, with the
 * notes and suggestions on its words added to its data (`notes`,
 * `resolved_notes`, `suggestions`); without a link, a `SUGGESTION` entity when there are
 * suggestions, else a `NOTE` entity; none for a run with none of these.
 */
function entityOfMarks(marks: PmMark[]): RawEntity | undefined {
  const link = marks.find((m) => m.type === 'link');
  const idsOf = (attr: string) =>
    marks
      .filter((m) => m.type === 'note')
      .flatMap((m) => String(m.attrs?.[attr] ?? '').split(/\s+/))
      .filter((id) => id.length > 0);
  const notes = idsOf('ids');
  const resolved = idsOf('resolved');
  const suggestions = marks
    .filter((m) => m.type === 'suggestion')
    .map((m) => suggestionData(m.attrs ?? {}));
  if (!link && notes.length === 0 && resolved.length === 0 && suggestions.length === 0) return undefined;
  const data: Record<string, unknown> = link ? { url: String(link.attrs?.href ?? '') } : {};
  if (notes.length) data.notes = [...new Set(notes)].sort();
  if (resolved.length) data.resolved_notes = [...new Set(resolved)].sort();
  if (suggestions.length) data.suggestions = suggestions;
  const type = link ? 'LINK' : suggestions.length ? 'SUGGESTION' : 'NOTE';
  return { type, mutability: 'MUTABLE', data };
}

/** A suggestion mark's attributes as raw content's entity data holds them. */
function suggestionData(attrs: Record<string, unknown>): Record<string, unknown> {
  const data: Record<string, unknown> = {
    id: String(attrs.id ?? ''),
    kind: String(attrs.kind ?? 'insertion'),
    author: String(attrs.author ?? ''),
    at: String(attrs.at ?? ''),
  };
  if (data.kind === 'style') {
    data.style = String(attrs.style ?? '');
    data.on = attrs.on !== false;
  }
  return data;
}

/** The note and suggestion marks an entity's data carries. */
function annotationMarks(data: Record<string, unknown> | undefined): PmMark[] {
  const marks: PmMark[] = [];
  const idsIn = (list: unknown) => (Array.isArray(list) ? list.filter((id): id is string => typeof id === 'string' && id.length > 0) : []);
  const notes = idsIn(data?.notes);
  const resolved = idsIn(data?.resolved_notes);
  if (notes.length || resolved.length) marks.push({ type: 'note', attrs: { ids: notes.join(' '), resolved: resolved.join(' ') } });
  const suggestions = Array.isArray(data?.suggestions) ? data.suggestions : [];
  for (const s of suggestions as Record<string, unknown>[]) {
    const kind = s?.kind;
    if (typeof s?.id !== 'string' || !s.id || (kind !== 'insertion' && kind !== 'deletion' && kind !== 'style')) continue;
    const attrs: Record<string, unknown> = {
      id: s.id,
      kind,
      author: String(s.author ?? ''),
      at: String(s.at ?? ''),
      style: kind === 'style' ? String(s.style ?? '') : null,
      on: kind === 'style' ? s.on !== false : null,
    };
    marks.push({ type: 'suggestion', attrs });
  }
  return marks;
}

/** The editor's document as Draft.js raw content. */
export function toRaw(doc: PmNode): RawContent {
  const flat: Flat[] = [];
  flatten(doc.content ?? [], flat, { depth: 0, quote: false });
  const entityMap: Record<string, RawEntity> = {};
  let entities = 0;
  const keys = keysOf(flat);
  const blocks = flat.map((block, index): RawBlock => {
    const photo = block.type === 'atomic' ? block.inline[0] : undefined;
    if (photo) {
      const key = entities++;
      entityMap[String(key)] = {
        type: 'IMAGE',
        mutability: 'IMMUTABLE',
        data: { src: String(photo.attrs?.src ?? ''), alt: String(photo.attrs?.alt ?? '') },
      };
      return {
        key: keys[index],
        text: IMAGE_CHARACTER,
        type: 'atomic',
        depth: 0,
        inlineStyleRanges: [],
        entityRanges: [{ offset: 0, length: 1, key }],
        data: {},
      };
    }
    let text = '';
    let points = 0;
    const inlineStyleRanges: RawBlock['inlineStyleRanges'] = [];
    const entityRanges: RawBlock['entityRanges'] = [];
    // The entity of the run before: the same entity goes on (one range).
    let open: { same: string; key: number } | undefined;
    for (const inline of block.inline) {
      const piece = inline.type === 'hardBreak' ? '\n' : inline.type === 'text' ? inline.text ?? '' : '';
      const start = points;
      text += piece;
      points += Array.from(piece).length;
      const end = points;
      if (start === end) continue;
      for (const mark of inline.marks ?? []) {
        const style = STYLE_OF_MARK[mark.type];
        if (style) {
          addRange(inlineStyleRanges, (offset, length) => ({ offset, length, style }), (r) => r.style === style, start, end);
        }
      }
      const entity = entityOfMarks(inline.marks ?? []);
      if (entity) {
        const same = JSON.stringify(entity);
        if (!open || open.same !== same) {
          open = { same, key: entities++ };
          entityMap[String(open.key)] = entity;
        }
        const key = open.key;
        addRange(entityRanges, (offset, length) => ({ offset, length, key }), (r) => r.key === key, start, end);
      } else {
        open = undefined;
      }
    }
    return { key: keys[index], text, type: block.type, depth: block.depth, inlineStyleRanges, entityRanges, data: {} };
  });
  if (blocks.length === 0) {
    blocks.push({ key: placeKey(0, new Set()), text: '', type: 'unstyled', depth: 0, inlineStyleRanges: [], entityRanges: [], data: {} });
  }
  return { blocks, entityMap };
}

/** A block's text split where its styles or links change, as text nodes with marks. */
function inlineOf(block: RawBlock, entityMap: Record<string, RawEntity> | RawEntity[]): PmNode[] {
  const chars = Array.from(block.text ?? '');
  const cuts = new Set<number>([0, chars.length]);
  for (const r of [...(block.inlineStyleRanges ?? []), ...(block.entityRanges ?? [])]) {
    cuts.add(Math.max(0, Math.min(chars.length, r.offset)));
    cuts.add(Math.max(0, Math.min(chars.length, r.offset + r.length)));
  }
  chars.forEach((c, i) => {
    if (c === '\n') {
      cuts.add(i);
      cuts.add(i + 1);
    }
  });
  const points = [...cuts].sort((a, b) => a - b);
  const nodes: PmNode[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const [start, end] = [points[i], points[i + 1]];
    if (start === end) continue;
    const piece = chars.slice(start, end).join('');
    if (piece === '\n') {
      nodes.push({ type: 'hardBreak' });
      continue;
    }
    const covers = (r: RawRange) => r.offset <= start && r.offset + r.length >= end;
    const marks: PmMark[] = [];
    for (const r of block.inlineStyleRanges ?? []) {
      const mark = MARK_OF_STYLE[r.style];
      if (mark && covers(r) && !marks.some((m) => m.type === mark)) marks.push({ type: mark });
    }
    for (const r of block.entityRanges ?? []) {
      const entity = (entityMap as Record<string, RawEntity>)[String(r.key)];
      if (!entity || !covers(r)) continue;
      if (entity.type === 'LINK') {
        marks.push({ type: 'link', attrs: { href: String(entity.data?.url ?? entity.data?.href ?? '') } });
      }
      marks.push(...annotationMarks(entity.data));
    }
    nodes.push(marks.length ? { type: 'text', text: piece, marks } : { type: 'text', text: piece });
  }
  return nodes;
}

/** A photo's node when `block` is an atomic block holding an `IMAGE` entity. */
function photoOf(block: RawBlock, entityMap: Record<string, RawEntity> | RawEntity[]): PmNode | undefined {
  if (block.type !== 'atomic') return undefined;
  for (const range of block.entityRanges ?? []) {
    const entity = (entityMap as Record<string, RawEntity>)[String(range.key)];
    if (entity && entity.type.toUpperCase() === 'IMAGE' && typeof entity.data?.src === 'string') {
      return { type: 'image', attrs: { src: entity.data.src, alt: String(entity.data.alt ?? ''), title: null, width: null, height: null } };
    }
  }
  return undefined;
}

/** A block's node, with `key` as its block key when there is one. */
function nodeOf(type: string, content: PmNode[], key: string | undefined, attrs: Record<string, unknown> = {}): PmNode {
  const node: PmNode = { type };
  if (key !== undefined) attrs = { ...attrs, [BLOCK_KEY]: key };
  if (Object.keys(attrs).length) node.attrs = attrs;
  if (content.length) node.content = content;
  return node;
}

/** Draft.js raw content as the editor's document. */
export function fromRaw(raw: RawContent): PmNode {
  const content: PmNode[] = [];
  // Open lists by depth: [list node, its type].
  let lists: { node: PmNode; type: string }[] = [];
  let quote: PmNode | undefined;
  // Each block's key, the first to have one keeping it.
  const seen = new Set<string>();
  for (const block of raw.blocks ?? []) {
    const key = isBlockKey(block.key) && !seen.has(block.key) ? block.key : undefined;
    if (key !== undefined) seen.add(key);
    const photo = photoOf(block, raw.entityMap ?? {});
    if (photo) {
      lists = [];
      quote = undefined;
      if (key !== undefined) photo.attrs = { ...photo.attrs, [BLOCK_KEY]: key };
      content.push(photo);
      continue;
    }
    const inline = inlineOf(block, raw.entityMap ?? {});
    const isList = block.type === 'unordered-list-item' || block.type === 'ordered-list-item';
    if (!isList) lists = [];
    if (block.type !== 'blockquote') quote = undefined;
    if (isList) {
      const depth = Math.max(0, Math.min(block.depth ?? 0, lists.length));
      const listType = block.type === 'unordered-list-item' ? 'bulletList' : 'orderedList';
      lists = lists.slice(0, depth + 1);
      if (lists.length === depth + 1 && lists[depth].type !== listType) lists = lists.slice(0, depth);
      if (lists.length <= depth) {
        const list: PmNode = { type: listType, content: [] };
        if (depth === 0) {
          content.push(list);
        } else {
          const parentItems = lists[depth - 1].node.content!;
          parentItems[parentItems.length - 1].content!.push(list);
        }
        lists.push({ node: list, type: listType });
      }
      lists[depth].node.content!.push({ type: 'listItem', content: [nodeOf('paragraph', inline, key)] });
      continue;
    }
    const heading = /^header-(one|two|three|four|five|six)$/.exec(block.type);
    if (heading) {
      content.push(nodeOf('heading', inline, key, { level: HEADINGS.indexOf(heading[1]) + 1 }));
    } else if (block.type === 'code-block') {
      const text = block.text ?? '';
      content.push(nodeOf('codeBlock', text ? [{ type: 'text', text }] : [], key, { language: null }));
    } else if (block.type === 'blockquote') {
      if (!quote) {
        quote = { type: 'blockquote', content: [] };
        content.push(quote);
      }
      quote.content!.push(nodeOf('paragraph', inline, key));
    } else {
      content.push(nodeOf('paragraph', inline, key));
    }
  }
  if (content.length === 0) content.push({ type: 'paragraph' });
  return { type: 'doc', content };
}

/** Parses a stored `content_raw` (a JSON string or an object); `undefined` when it is not raw content. */
export function parseRaw(stored: unknown): RawContent | undefined {
  try {
    const value = typeof stored === 'string' ? JSON.parse(stored) : stored;
    if (value && typeof value === 'object' && Array.isArray((value as RawContent).blocks)) {
      return value as RawContent;
    }
  } catch {
    // Not JSON: no raw content.
  }
  return undefined;
}

// Every block of the body keeps a key of its own while it is edited, split,
// joined and moved, so the Draft.js `key` the server's merge aligns blocks by
// names the same paragraph in every version (not its place).
//
// The blocks are what becomes one Draft.js block (src/draftjs.ts): each
// paragraph wherever it stands (in a quote or a list item too), heading,
// code block and photo. The key is the node attribute `blockKey`, never
// written into the stored HTML; it travels in the clipboard's HTML (as
// `data-block-key`), so a paragraph cut and pasted elsewhere takes it along.
//
// After each change: a block the change did not touch keeps its key; a
// changed block whose text is exactly that of a block the change removed
// (or of one just pasted, cut from here) takes that block's key, so a
// moved block takes its key along, a paragraph turned into a heading keeps
// it, and so does a paragraph when Enter at its start puts an empty one
// before it, or Backspace at its start joins it to an empty one; any other
// block keeps its own key unless a block before it in the document has it
// (Enter in the middle of a paragraph: the first half keeps it; Backspace
// at its start: the joined paragraph keeps the first one's); a block
// without a key, or whose key is taken, gets a new one, five base-36
// characters as Draft.js makes them, unlike every key in the document. A
// copy pasted while its original stays has a new key, wherever it goes.
//
// Why not TipTap's UniqueID (`@tiptap/extension-unique-id`, MIT since
// TipTap 3): it writes the id into the HTML (`data-id`), which would change
// the stored body; it takes the id off everything pasted, so a paragraph
// cut and pasted elsewhere is a new one; its peer dependencies pin one
// TipTap release (3.31.3, not ours); and its ids are UUIDs by default. It
// does keep the id on the first half of a split (and moves it to the second
// when the first is empty, as here). The rules above fit in the plugin below.

import { Extension, generateJSON, type Extensions } from '@tiptap/core';
import { DOMSerializer, type Fragment, type Node as PmModelNode, type Schema } from '@tiptap/pm/model';
import { Plugin, PluginKey, type EditorState, type Transaction } from '@tiptap/pm/state';
import { diffArrays } from 'diff';
import { BLOCK_KEY, isBlockKey, keyOfNumber, placeKey, type PmNode, type RawContent } from './draftjs';

/** The node types that are one Draft.js block each. */
export const KEYED_TYPES = ['paragraph', 'heading', 'codeBlock', 'image'];
const KEYED = new Set(KEYED_TYPES);

/** The clipboard's attribute for a block's key. */
const CLIPBOARD_ATTRIBUTE = 'data-block-key';

/** A new key, five base-36 characters, that is not in `taken` (and is added to it). */
export function freshKey(taken: Set<string>): string {
  const random = () => {
    const crypto = globalThis.crypto;
    if (crypto?.getRandomValues) return crypto.getRandomValues(new Uint32Array(1))[0];
    return Math.floor(Math.random() * 2 ** 32);
  };
  let key = keyOfNumber(random());
  while (taken.has(key)) key = keyOfNumber(random());
  taken.add(key);
  return key;
}

/** The blocks of a JSON document (as TipTap's `getJSON()` gives it), in order. */
function jsonBlocks(node: PmNode, into: PmNode[] = []): PmNode[] {
  for (const child of node.content ?? []) {
    if (KEYED.has(child.type)) into.push(child);
    else jsonBlocks(child, into);
  }
  return into;
}

/** What a block says, for telling it apart: a photo's address and caption, or its text. */
function jsonSignature(block: PmNode): string {
  if (block.type === 'image') return `image ${String(block.attrs?.src ?? '')} ${String(block.attrs?.alt ?? '')}`;
  const text = (node: PmNode): string => (node.type === 'hardBreak' ? '\n' : (node.text ?? (node.content ?? []).map(text).join('')));
  return `text ${text(block)}`;
}

function rawSignature(block: RawContent['blocks'][number], raw: RawContent): string {
  if (block.type === 'atomic') {
    const entity = (block.entityRanges ?? [])
      .map((range) => (raw.entityMap as Record<string, RawContent['entityMap'][string]>)?.[String(range.key)])
      .find((e) => e?.type?.toUpperCase() === 'IMAGE');
    if (entity) return `image ${String(entity.data?.src ?? '')} ${String(entity.data?.alt ?? '')}`;
  }
  return `text ${block.text ?? ''}`;
}

/** A copy of a JSON node with `key` as its block key. */
function withKey(node: PmNode, key: string): PmNode {
  return { ...node, attrs: { ...node.attrs, [BLOCK_KEY]: key } };
}

/** The JSON document with its blocks replaced by `map` (depth first, in order). */
function mapBlocks(node: PmNode, map: (block: PmNode) => PmNode): PmNode {
  if (!node.content) return node;
  return { ...node, content: node.content.map((child) => (KEYED.has(child.type) ? map(child) : mapBlocks(child, map))) };
}

/**
 * A JSON document whose every block has a key, unique in it: a block keeps
 * its own unless an earlier one has it; the others get new ones, or
 * with `byPlace` (a body read from HTML that carried none) the key of its
 * place, the same in every window that opens the same body, so two people
 * in a story without raw content name its paragraphs alike (presence, and
 * the merge, align by key).
 */
export function keyedDoc(doc: PmNode, byPlace = false): PmNode {
  const taken = new Set(jsonBlocks(doc).map((b) => b.attrs?.[BLOCK_KEY]).filter(isBlockKey));
  const used = new Set<string>();
  let place = 0;
  return mapBlocks(doc, (block) => {
    place += 1;
    const own = block.attrs?.[BLOCK_KEY];
    if (isBlockKey(own) && !used.has(own)) {
      used.add(own);
      return block;
    }
    return withKey(block, byPlace ? placeKey(place - 1, taken) : freshKey(taken));
  });
}


/**
 * `doc` (read from HTML, so without keys) with the keys of `raw`, the same
 * body's Draft.js raw content: a block takes the key of the raw block that
 * says the same, paired in order (a block the two do not agree on gets none).
 */
export function carryKeys(doc: PmNode, raw: RawContent | undefined): PmNode {
  const rawBlocks = raw?.blocks ?? [];
  if (!rawBlocks.length) return doc;
  const blocks = jsonBlocks(doc);
  const keyOf = new Map<PmNode, string>();
  const seen = new Set<string>();
  let b = 0;
  let r = 0;
  for (const part of diffArrays(
    blocks.map(jsonSignature),
    rawBlocks.map((block) => rawSignature(block, raw!)),
  )) {
    const count = part.count ?? part.value.length;
    if (part.added) r += count;
    else if (part.removed) b += count;
    else {
      for (let i = 0; i < count; i++) {
        const key = rawBlocks[r + i].key;
        if (isBlockKey(key) && !seen.has(key)) {
          seen.add(key);
          keyOf.set(blocks[b + i], key);
        }
      }
      b += count;
      r += count;
    }
  }
  return mapBlocks(doc, (block) => {
    const key = keyOf.get(block);
    return key === undefined ? block : withKey(block, key);
  });
}

/**
 * The document the editor starts with, every block keyed: `initial` as it
 * is (a document) or read with the editor's `extensions` (HTML), its blocks
 * taking the keys of `raw` where they say the same.
 */
export function startingDoc(initial: PmNode | string, extensions: Extensions, raw?: RawContent): PmNode {
  if (typeof initial !== 'string') return keyedDoc(initial);
  return keyedDoc(carryKeys(generateJSON(initial, extensions) as PmNode, raw), true);
}

interface Found {
  node: PmModelNode;
  pos: number;
}

/** The blocks of a ProseMirror document or fragment, in order, with their positions. */
function blocksOf(doc: PmModelNode | Fragment): Found[] {
  const found: Found[] = [];
  doc.descendants((node, pos) => {
    if (KEYED.has(node.type.name)) {
      found.push({ node, pos });
      return false;
    }
    return !node.isTextblock && !node.isAtom;
  });
  return found;
}

/** What a block says (see `jsonSignature`); nothing for an empty one, which says nothing to pair it by. */
function signature(node: PmModelNode): string | undefined {
  if (node.type.name === 'image') return `image ${String(node.attrs.src ?? '')} ${String(node.attrs.alt ?? '')}`;
  return node.textContent ? `text ${node.textContent}` : undefined;
}

/** A block just pasted, with the key it had in the clipboard. */
export interface Pasted {
  signature: string;
  key: string;
}

/** The pasted blocks of a slice's content that had a key. */
export function pastedOf(content: Fragment): Pasted[] {
  return blocksOf(content).flatMap(({ node }) => {
    const sig = signature(node);
    const key = node.attrs[BLOCK_KEY];
    return sig && isBlockKey(key) ? [{ signature: sig, key }] : [];
  });
}

/**
 * The keys to set after a change from `before` to `after` (the rules at the
 * top of this file): where, and which key. `pasted` are the blocks a paste
 * or a drop in this change brought, as the clipboard had them.
 */
export function keyChanges(before: PmModelNode | undefined, after: PmModelNode, pasted: Pasted[] = []): { pos: number; key: string }[] {
  const old = before ? blocksOf(before) : [];
  const now = blocksOf(after);
  const oldNodes = new Set(old.map((b) => b.node));
  const nowNodes = new Set(now.map((b) => b.node));
  const keys: (string | undefined)[] = now.map(() => undefined);
  const held = new Set<string>();
  const hold = (i: number, key: string) => {
    keys[i] = key;
    held.add(key);
  };
  // A block the change did not touch (the same node) keeps its key.
  now.forEach((b, i) => {
    const own = b.node.attrs[BLOCK_KEY];
    if (oldNodes.has(b.node) && isBlockKey(own) && !held.has(own)) hold(i, own);
  });
  // A changed block that says exactly what a removed (or pasted) block said takes its key.
  const gone = new Map<string, string[]>();
  const offer = (sig: string | undefined, key: unknown) => {
    if (!sig || !isBlockKey(key)) return;
    const list = gone.get(sig);
    if (list) list.push(key);
    else gone.set(sig, [key]);
  };
  for (const b of old) if (!nowNodes.has(b.node)) offer(signature(b.node), b.node.attrs[BLOCK_KEY]);
  for (const p of pasted) offer(p.signature, p.key);
  if (gone.size) {
    now.forEach((b, i) => {
      if (keys[i] !== undefined) return;
      const sig = signature(b.node);
      const key = sig === undefined ? undefined : gone.get(sig)?.find((k) => !held.has(k));
      if (key !== undefined) hold(i, key);
    });
  }
  // Any other keeps its own, unless a block before it has it.
  now.forEach((b, i) => {
    const own = b.node.attrs[BLOCK_KEY];
    if (keys[i] === undefined && isBlockKey(own) && !held.has(own)) hold(i, own);
  });
  // The rest get new keys, unlike any in the document, before the change, or pasted.
  const taken = new Set<string>([...held, ...old.map((b) => b.node.attrs[BLOCK_KEY]).filter(isBlockKey), ...pasted.map((p) => p.key)]);
  return now.flatMap((b, i) => {
    const key = keys[i] ?? freshKey(taken);
    return b.node.attrs[BLOCK_KEY] === key ? [] : [{ pos: b.pos, key }];
  });
}

const pluginKey = new PluginKey('blockKeys');

/** `changes` set on `state`'s document, as a transaction nobody undoes on its own; nothing when there are none. */
function setKeys(state: EditorState, changes: { pos: number; key: string }[]): Transaction | null {
  if (!changes.length) return null;
  const tr = state.tr;
  for (const { pos, key } of changes) tr.setNodeAttribute(pos, BLOCK_KEY, key);
  // Setting an attribute drops the marks the next typed character would take.
  if (state.storedMarks) tr.setStoredMarks(state.storedMarks);
  return tr.setMeta(pluginKey, true);
}

/** The editor's HTML serializer, with each block's key on its element (for the clipboard). */
function clipboardSerializer(schema: Schema): DOMSerializer {
  const base = DOMSerializer.fromSchema(schema);
  const nodes = { ...base.nodes };
  for (const name of KEYED_TYPES) {
    const render = base.nodes[name];
    if (!render) continue;
    nodes[name] = (node) => {
      const spec = render(node);
      const key = node.attrs[BLOCK_KEY];
      if (!isBlockKey(key)) return spec;
      const out = DOMSerializer.renderSpec(document, spec);
      if (out.dom instanceof Element) {
        // A photo is read back from its `img` (`<figure><img></figure>`).
        const target = node.type.name === 'image' ? (out.dom.querySelector('img') ?? out.dom) : out.dom;
        target.setAttribute(CLIPBOARD_ATTRIBUTE, key);
      }
      return out;
    };
  }
  return new DOMSerializer(nodes, base.marks);
}

export const BlockKeys = Extension.create({
  name: 'blockKeys',

  addGlobalAttributes() {
    return [
      {
        types: KEYED_TYPES,
        attributes: {
          [BLOCK_KEY]: {
            default: null,
            // Never in the stored HTML: only the clipboard carries it.
            rendered: false,
            keepOnSplit: false,
            parseHTML: (element) => element.getAttribute(CLIPBOARD_ATTRIBUTE) || null,
          },
        },
      },
    ];
  },

  // A document given without keys gets them (the editor's own start, `startingDoc`, has them already).
  onCreate() {
    const tr = setKeys(this.editor.state, keyChanges(undefined, this.editor.state.doc));
    if (tr) this.editor.view.dispatch(tr.setMeta('addToHistory', false));
  },

  addProseMirrorPlugins() {
    // The blocks of the last slice pasted or dropped, until its transaction comes.
    let pasted: Pasted[] = [];
    return [
      new Plugin({
        key: pluginKey,
        appendTransaction: (transactions, oldState, newState) => {
          if (!transactions.some((tr) => tr.docChanged) || transactions.every((tr) => tr.getMeta(pluginKey))) return null;
          const brought = transactions.some((tr) => ['paste', 'drop'].includes(tr.getMeta('uiEvent'))) ? pasted : [];
          if (brought.length) pasted = [];
          return setKeys(newState, keyChanges(oldState.doc, newState.doc, brought));
        },
        props: {
          clipboardSerializer: clipboardSerializer(this.editor.schema),
          transformPasted: (slice) => {
            pasted = pastedOf(slice.content);
            return slice;
          },
        },
      }),
    ];
  },
});

// The rich-text editor (TipTap, on ProseMirror) with a labelled toolbar that
// stays in view, a link dialog, a dialog that places a photo at the cursor,
// find and replace, and keyboard shortcuts. Every block keeps a key of its
// own (src/block-keys.ts), the Draft.js key its raw content is written with.
// In Suggest mode typing, deleting and styling become suggested edits
// (src/suggesting.ts); notes go on selected words.

import { Editor as TipTap } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import { GapCursor } from '@tiptap/pm/gapcursor';
import { NodeSelection, TextSelection, type Transaction } from '@tiptap/pm/state';
import type { ComponentChildren } from 'preact';
import { createPortal } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import { NoteMark, SuggestionMark } from './annotation-marks';
import { BlockKeys, startingDoc } from './block-keys';
import type { PmNode, RawContent } from './draftjs';
import { addNote, isSuggesting, removeNote, setSuggesting, suggestStyle, SuggestEdits, type Suggester } from './suggesting';
import { FindHighlight, findKey, findMatches, replaceAllIn, type FindQuery, type Match } from './find';
import { Problem } from './load';
import { cursorBlock, OthersHere, showOthers, type OtherHere } from './others-here';
import { BodyPhoto, type Photo } from './photo-node';

export interface Body {
  html: string;
  doc: PmNode;
}

interface Props {
  /** The body to start from: a document (from a draft) or HTML (from the item). */
  initial: PmNode | string;
  /** The Draft.js raw content of an HTML `initial`, whose block keys its blocks take where they say the same. */
  keysFrom?: RawContent;
  label: string;
  editable: boolean;
  onChange: (body: Body) => void;
  /** The body as the editor starts with it, before any change. */
  onStart?: (body: Body) => void;
  /** The body's plain text, when the editor starts and after every change (for the counts). */
  onText?: (text: string) => void;
  /**
   * What the “Insert photo” dialog offers for choosing a photo: it calls
   * `place` with the chosen one. Without it the toolbar has no photo button.
   */
  photos?: (place: (photo: Photo) => void) => ComponentChildren;
  /** The service's address, for showing photos stored as `/files/…` paths ('' for this page's origin). */
  fileBase?: string;
  /** Who suggests edits and makes notes; without it the toolbar offers neither. */
  suggester?: Suggester;
  /** Starts a note's thread with its first words: what went wrong, or nothing. */
  startNote?: (note: string, words: string, said: string) => Promise<string | undefined>;
  /** The suggestions and notes panel, drawn again after every change to the text. */
  review?: (editor: TipTap) => ComponentChildren;
  /** Where the panel goes (beside the text); under the editor without it. */
  reviewHost?: HTMLElement | null;
  /** Told the key of the block the cursor is in, whenever it moves to another. */
  onCursorBlock?: (key: string | null) => void;
  /** Other people's places in the body, marked beside their paragraphs. */
  othersHere?: OtherHere[];
}

/** The key that goes with S, K and F in the shortcuts: ⌘ on a Mac, Ctrl elsewhere. */
export const MOD = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘' : 'Ctrl';

/** The shortcuts the editor answers, as the help panel lists them. */
export const SHORTCUTS: [string, string][] = [
  [`${MOD}+S`, 'Save as new version (anywhere in the story)'],
  [`${MOD}+K`, 'Add, change or remove a link (in the body)'],
  [`${MOD}+F`, 'Find and replace (in the body)'],
  [`${MOD}+B / ${MOD}+I / ${MOD}+U`, 'Bold, italic, underline'],
  [`${MOD}+Z / ${MOD}+Shift+Z`, 'Undo, redo'],
  ['Enter (in Find)', 'Find next'],
  ['Escape', 'Close the find panel or a dialog'],
];

export function RichText({ initial, keysFrom, label, editable, onChange, onStart, onText, photos, fileBase = '', suggester, startNote, review, reviewHost, onCursorBlock, othersHere }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<TipTap | undefined>(undefined);
  const [, setTick] = useState(0);
  const changed = useRef(onChange);
  const texted = useRef(onText);
  const baseline = useRef<string | undefined>(undefined);
  const suggesting = useRef(suggester);
  const cursorMoved = useRef(onCursorBlock);
  const lastBlock = useRef<string | null>(null);
  cursorMoved.current = onCursorBlock;
  changed.current = onChange;
  texted.current = onText;
  suggesting.current = suggester;

  useEffect(() => {
    const extensions = [
      // No horizontal rules: Draft.js raw content has no block for one, so a
      // rule would be lost from the raw content and by the next merge.
      StarterKit.configure({
        link: { openOnClick: false, autolink: true },
        trailingNode: false,
        horizontalRule: false,
      }),
      BodyPhoto.configure({ base: fileBase }),
      FindHighlight,
      BlockKeys,
      // Notes and suggested edits stay on their words through a save.
      NoteMark,
      SuggestionMark,
      OthersHere,
      SuggestEdits.configure({ suggester: () => suggesting.current ?? { author: '', newId: () => crypto.randomUUID(), now: () => new Date().toISOString() } }),
    ];
    const made = new TipTap({
      element: host.current!,
      extensions,
      content: startingDoc(initial, extensions, keysFrom) as never,
      editable,
      editorProps: { attributes: { 'aria-label': label, role: 'textbox', 'aria-multiline': 'true', class: 'body-text' } },
      // Only a real change counts (not the editor settling its first document).
      onUpdate: ({ editor: e }) => {
        texted.current?.(e.getText());
        const html = e.getHTML();
        if (html === baseline.current) return;
        baseline.current = undefined;
        changed.current({ html, doc: e.getJSON() as PmNode });
      },
      onSelectionUpdate: ({ editor: e }) => {
        setTick((t) => t + 1);
        const block = cursorBlock(e.state);
        if (block !== lastBlock.current) {
          lastBlock.current = block;
          cursorMoved.current?.(block);
        }
      },
      onTransaction: () => setTick((t) => t + 1),
    });
    editor.current = made;
    baseline.current = made.getHTML();
    texted.current?.(made.getText());
    onStart?.({ html: baseline.current, doc: made.getJSON() as PmNode });
    return () => made.destroy();
    // The editor is made once per mount; the screen remounts it for another body.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    editor.current?.setEditable(editable, false);
  }, [editable]);

  useEffect(() => {
    const e = editor.current;
    if (e && !e.isDestroyed) e.view.dispatch(showOthers(e.state, othersHere ?? []));
  }, [othersHere]);

  const [linking, setLinking] = useState(false);
  const [placing, setPlacing] = useState(false);
  const [finding, setFinding] = useState(false);
  const [helping, setHelping] = useState(false);
  const [noting, setNoting] = useState(false);

  const e = editor.current;
  const suggestMode = e ? isSuggesting(e.state) : false;
  /** Bold, italic or underline: put on, or in Suggest mode suggested. */
  const styled = (mark: string, run: () => void) => () => {
    if (!e) return;
    if (suggestMode && suggester) {
      const { from, to } = e.state.selection;
      e.view.dispatch(suggestStyle(e.state, from, to, mark, suggester));
      e.commands.focus();
    } else run();
  };
  const button = (name: string, active: boolean, run: () => void) => (
    <button type="button" aria-pressed={active} disabled={!editable} onClick={run} key={name}>
      {name}
    </button>
  );
  return (
    <div
      class="rich-text"
      onKeyDown={(event) => {
        if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
        const key = event.key.toLowerCase();
        if (key === 'k' && editable) {
          event.preventDefault();
          setLinking(true);
        } else if (key === 'f') {
          event.preventDefault();
          setFinding(true);
          // Already open: bring focus back to its field.
          document.getElementById('find-text')?.focus();
        }
      }}
    >
      <div class="rich-text-head">
        <div role="toolbar" aria-label={`${label}: formatting`} class="toolbar">
          {e && [
            button('Bold', e.isActive('bold'), styled('bold', () => e.chain().focus().toggleBold().run())),
            button('Italic', e.isActive('italic'), styled('italic', () => e.chain().focus().toggleItalic().run())),
            button('Underline', e.isActive('underline'), styled('underline', () => e.chain().focus().toggleUnderline().run())),
            button('Heading', e.isActive('heading', { level: 2 }), () => e.chain().focus().toggleHeading({ level: 2 }).run()),
            button('Bullet list', e.isActive('bulletList'), () => e.chain().focus().toggleBulletList().run()),
            button('Numbered list', e.isActive('orderedList'), () => e.chain().focus().toggleOrderedList().run()),
            button('Quote', e.isActive('blockquote'), () => e.chain().focus().toggleBlockquote().run()),
            button('Link', e.isActive('link'), () => setLinking(true)),
          ]}
          {e && photos && (
            <button type="button" disabled={!editable} onClick={() => setPlacing(true)} aria-haspopup="dialog">
              Insert photo
            </button>
          )}
          {e && suggester && (
            <button
              type="button"
              aria-pressed={suggestMode}
              disabled={!editable}
              title="Typing, deleting and bold, italic or underline become suggestions the writer accepts or rejects"
              onClick={() => {
                e.view.dispatch(setSuggesting(e.state, !suggestMode));
                e.commands.focus();
              }}
            >
              Suggest
            </button>
          )}
          {e && startNote && (
            <button type="button" disabled={!editable || e.state.selection.empty} onClick={() => setNoting(true)} aria-haspopup="dialog">
              Add note
            </button>
          )}
          <button type="button" aria-pressed={finding} onClick={() => setFinding(!finding)} aria-keyshortcuts="Control+F Meta+F">
            Find and replace
          </button>
          <button type="button" onClick={() => setHelping(true)} aria-haspopup="dialog">
            Shortcuts
          </button>
        </div>
        {finding && e && <FindPanel editor={e} editable={editable && !suggestMode} close={() => setFinding(false)} />}
      </div>
      <div ref={host} />
      {e && review && (reviewHost ? createPortal(<>{review(e)}</>, reviewHost) : review(e))}
      {linking && e && <LinkDialog editor={e} close={() => setLinking(false)} />}
      {placing && e && photos && <PhotoDialog editor={e} choose={photos} close={() => setPlacing(false)} />}
      {helping && <ShortcutsDialog close={() => setHelping(false)} />}
      {noting && e && startNote && <NoteDialog editor={e} start={startNote} close={() => setNoting(false)} />}
    </div>
  );
}

/**
 * A modal dialog that takes the focus when it opens and gives it back when
 * it closes (to `back`, or to whatever had it before).
 */
function Dialog(props: { title: string; id: string; close: () => void; back?: () => void; children: ComponentChildren }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    dialog.current?.showModal();
    return () => {
      if (props.back) props.back();
      else before?.focus();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <dialog
      ref={dialog}
      class="editor-dialog"
      aria-labelledby={`${props.id}-title`}
      onCancel={(event) => {
        event.preventDefault();
        props.close();
      }}
    >
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/** Sets, changes or removes the link on the selected words (or inserts the address as a link where nothing is selected). */
function LinkDialog({ editor, close }: { editor: TipTap; close: () => void }) {
  const [href, setHref] = useState(String(editor.getAttributes('link').href ?? ''));
  const had = editor.isActive('link');
  const apply = () => {
    const address = href.trim();
    if (!address) editor.chain().focus().extendMarkRange('link').unsetLink().run();
    else if (editor.state.selection.empty && !had) {
      editor
        .chain()
        .focus()
        .insertContent({ type: 'text', text: address, marks: [{ type: 'link', attrs: { href: address } }] })
        .run();
    } else editor.chain().focus().extendMarkRange('link').setLink({ href: address }).run();
    close();
  };
  return (
    <Dialog title={had ? 'Change the link' : 'Add a link'} id="link" close={close} back={() => editor.commands.focus()}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          apply();
        }}
      >
        <label>
          Link address <input name="href" value={href} autoFocus placeholder="https://…" onInput={(event) => setHref(event.currentTarget.value)} />
        </label>
        <p class="hint">Leave it empty to remove the link.</p>
        <button type="submit">Apply</button>
        {had && (
          <button
            type="button"
            onClick={() => {
              editor.chain().focus().extendMarkRange('link').unsetLink().run();
              close();
            }}
          >
            Remove link
          </button>
        )}
        <button type="button" onClick={close}>
          Cancel
        </button>
      </form>
    </Dialog>
  );
}

/**
 * Leaves the cursor after a photo just placed, never on the photo itself:
 * a selected photo is deleted by the next key typed. Followed by a
 * paragraph, the cursor starts it; with nothing to type in after it (the
 * end of the story, another photo), a gap cursor stands there, and typing
 * makes a new paragraph, so the body gains no empty one.
 */
export function cursorAfterPhoto(tr: Transaction): boolean {
  const { selection } = tr;
  if (!(selection instanceof NodeSelection)) return true;
  const after = tr.doc.resolve(selection.to);
  if (after.nodeAfter?.isTextblock) {
    tr.setSelection(TextSelection.create(tr.doc, selection.to + 1));
  } else if (!after.parent.inlineContent) {
    tr.setSelection(new GapCursor(after));
  }
  return true;
}

/**
 * Places a photo where the cursor was (as a block of its own: a paragraph
 * the cursor stood in is split there), chosen by uploading or picking.
 */
function PhotoDialog({ editor, choose, close }: { editor: TipTap; choose: (place: (photo: Photo) => void) => ComponentChildren; close: () => void }) {
  const place = (photo: Photo) => {
    if (editor.isDestroyed) return;
    editor
      .chain()
      .focus()
      .setImage({ src: photo.src, alt: photo.alt })
      .command(({ tr }) => cursorAfterPhoto(tr))
      .run();
    close();
  };
  return (
    <Dialog title="Insert a photo" id="photo" close={close} back={() => !editor.isDestroyed && editor.commands.focus()}>
      <p class="hint">The photo goes where the cursor is, with its title as the caption.</p>
      {choose(place)}
      <button type="button" onClick={close}>
        Cancel
      </button>
    </Dialog>
  );
}

/** Asks for a note's first words, starts its thread, then puts the note on the words that were selected. */
function NoteDialog({ editor, start, close }: { editor: TipTap; start: (note: string, words: string, said: string) => Promise<string | undefined>; close: () => void }) {
  const [said, setSaid] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();
  const { from, to } = editor.state.selection;
  const words = editor.state.doc.textBetween(from, to, ' ');
  return (
    <Dialog title="Add a note" id="note" close={close} back={() => !editor.isDestroyed && editor.commands.focus()}>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          if (!said.trim() || busy) return;
          setBusy(true);
          const note = crypto.randomUUID();
          // On the words now, while they are where they were selected; taken off again if the thread cannot start.
          editor.view.dispatch(addNote(editor.state, from, to, note));
          const failed = await start(note, words, said);
          setBusy(false);
          if (editor.isDestroyed) return;
          setProblem(failed);
          if (failed) {
            editor.view.dispatch(removeNote(editor.state, note));
            return;
          }
          close();
        }}
      >
        <p class="hint">On “{words}”. Notes never print.</p>
        <label>
          Note <textarea name="note" rows={3} value={said} autoFocus onInput={(event) => setSaid(event.currentTarget.value)} />
        </label>
        <Problem message={problem} />
        <button type="submit" disabled={busy}>
          Add note
        </button>
        <button type="button" onClick={close}>
          Cancel
        </button>
      </form>
    </Dialog>
  );
}

function ShortcutsDialog({ close }: { close: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" id="shortcuts" close={close}>
      <table class="shortcuts">
        <tbody>
          {SHORTCUTS.map(([keys, what]) => (
            <tr key={keys}>
              <th scope="row">
                <kbd>{keys}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={close} autoFocus>
        Close
      </button>
    </Dialog>
  );
}

/** Find next, replace, replace all in the body; the matches are marked in the text while it is open. */
function FindPanel({ editor, editable, close }: { editor: TipTap; editable: boolean; close: () => void }) {
  const [needle, setNeedle] = useState('');
  const [replacement, setReplacement] = useState('');
  const [matchCase, setMatchCase] = useState(false);
  const [said, setSaid] = useState('');
  const field = useRef<HTMLInputElement>(null);

  const mark = (query: FindQuery | null, select?: Match) => {
    const tr = editor.state.tr.setMeta(findKey, query);
    if (select) tr.setSelection(TextSelection.create(tr.doc, select.from, select.to)).scrollIntoView();
    editor.view.dispatch(tr);
  };

  useEffect(() => {
    field.current?.focus();
    return () => {
      if (!editor.isDestroyed) {
        mark(null);
        editor.commands.focus();
      }
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const count = findMatches(editor.state.doc, needle, matchCase).length;
    mark({ needle, matchCase, current: -1 });
    setSaid(needle ? (count === 1 ? 'One match.' : `${count || 'No'} matches.`) : '');
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [needle, matchCase]);

  const findNext = () => {
    const matches = findMatches(editor.state.doc, needle, matchCase);
    if (!matches.length) {
      setSaid(needle ? 'No matches.' : '');
      return;
    }
    const after = editor.state.selection.to;
    let index = matches.findIndex((m) => m.from >= after);
    if (index === -1) index = 0;
    mark({ needle, matchCase, current: index }, matches[index]);
    setSaid(`Match ${index + 1} of ${matches.length}.`);
  };

  const replace = () => {
    const { from, to } = editor.state.selection;
    const matches = findMatches(editor.state.doc, needle, matchCase);
    if (matches.some((m) => m.from === from && m.to === to)) {
      const tr = editor.state.tr;
      if (replacement) tr.insertText(replacement, from, to);
      else tr.delete(from, to);
      editor.view.dispatch(tr);
    }
    findNext();
  };

  const replaceAll = () => {
    const done = replaceAllIn(editor.state, needle, replacement, matchCase);
    if (!done) {
      setSaid('No matches.');
      return;
    }
    editor.view.dispatch(done.tr);
    setSaid(done.count === 1 ? 'Replaced one match.' : `Replaced ${done.count} matches.`);
  };

  return (
    <section
      class="find-panel"
      role="search"
      aria-label="Find and replace in the body"
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          close();
        }
      }}
    >
      <label>
        Find{' '}
        <input
          id="find-text"
          ref={field}
          value={needle}
          onInput={(event) => setNeedle(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              findNext();
            }
          }}
        />
      </label>
      <label>
        Replace with <input value={replacement} disabled={!editable} onInput={(event) => setReplacement(event.currentTarget.value)} />
      </label>
      <label class="check">
        <input type="checkbox" checked={matchCase} onChange={(event) => setMatchCase(event.currentTarget.checked)} /> Match case
      </label>
      <button type="button" onClick={findNext} disabled={!needle}>
        Find next
      </button>
      <button type="button" onClick={replace} disabled={!needle || !editable}>
        Replace
      </button>
      <button type="button" onClick={replaceAll} disabled={!needle || !editable}>
        Replace all
      </button>
      <button type="button" onClick={close}>
        Close
      </button>
      <span class="find-said" role="status">
        {said}
      </span>
    </section>
  );
}

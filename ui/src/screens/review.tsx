// The copy desk's marks on a story, beside its body: each suggested edit
// with its author, accepted or rejected one at a time or all of one
// author's at once, and each note with its words and its thread
// (the note-comment thread named by the note's UUID), answered in place, resolved (it stays
// on its words, hidden) and opened again; below them the notes whose words
// were deleted, as the service lists them from the versions. Accepting,
// rejecting and resolving are edits of the body, saved like any other.

import type { Editor as TipTap } from '@tiptap/core';
import { TextSelection } from '@tiptap/pm/state';
import { useState } from 'preact/hooks';
import type { ContentItem } from '../api';
import { useDesk } from '../context';
import { attempt, Problem, useLoad } from '../load';
import { describeSuggestion, inText, noteRange, resolveNote, settleSuggestions, type NoteInText, type SuggestionInText } from '../suggesting';
import { paragraphsOf } from '../text';
import { FlatThread } from './comments';
import { When } from '../when';
import * as ops from '../operations';

interface Props {
  editor: TipTap;
  item: ContentItem;
  editable: boolean;
}

export function Review({ editor, item, editable }: Props) {
  const { api } = useDesk();
  const { suggestions, notes: all } = inText(editor.state.doc);
  const notes = all.filter((n) => !n.resolved);
  const resolved = all.filter((n) => n.resolved);
  // Notes whose words were deleted, as the service lists them (from the versions).
  const listed = useLoad(() => ops.content.notes(api, item.uuid), [item.uuid, item.version]);
  const gone: NoteInText[] = (listed.data?.items ?? [])
    .filter((n) => n.state === 'words_deleted' && all.every((here) => here.id !== n.uuid))
    .map((n) => ({ id: n.uuid, words: n.words, resolved: false }));
  if (!suggestions.length && !all.length && !gone.length) return null;
  const settle = (which: (s: SuggestionInText) => boolean, accept: boolean) => {
    editor.view.dispatch(settleSuggestions(editor.state, (s) => which({ ...s, words: '' }), accept));
  };
  const authors = [...new Set(suggestions.map((s) => s.author))];
  return (
    <section class="review" aria-labelledby="review-heading">
      <h3 id="review-heading">Suggestions and notes</h3>
      {suggestions.length > 0 && (
        <>
          <ul class="suggestions" aria-label="Suggested edits">
            {suggestions.map((s) => (
              <li key={s.id} class={`suggestion ${s.kind}`}>
                <span class="what">{describeSuggestion(s)}</span> “{s.words}” <span class="who">{s.author || 'Someone'}</span>
                {s.at && (
                  <>
                    {' · '}
                    <When stamp={s.at} />
                  </>
                )}{' '}
                <button type="button" disabled={!editable} onClick={() => settle((x) => x.id === s.id, true)} aria-label={`Accept: ${describeSuggestion(s)} “${s.words}”`}>
                  Accept
                </button>
                <button type="button" disabled={!editable} onClick={() => settle((x) => x.id === s.id, false)} aria-label={`Reject: ${describeSuggestion(s)} “${s.words}”`}>
                  Reject
                </button>
              </li>
            ))}
          </ul>
          {authors.map((author) => (
            <p key={author} class="by-author">
              All by {author || 'someone'}:{' '}
              <button type="button" disabled={!editable} onClick={() => settle((x) => x.author === author, true)}>
                Accept all by {author || 'someone'}
              </button>
              <button type="button" disabled={!editable} onClick={() => settle((x) => x.author === author, false)}>
                Reject all by {author || 'someone'}
              </button>
            </p>
          ))}
        </>
      )}
      {notes.length > 0 && (
        <ul class="text-notes" aria-label="Notes">
          {notes.map((note) => (
            <TextNote key={note.id} note={note} item={item} editor={editor} editable={editable} />
          ))}
        </ul>
      )}
      {resolved.length > 0 && (
        <details class="gone-notes">
          <summary>Resolved notes ({resolved.length})</summary>
          <ul aria-label="Resolved notes">
            {resolved.map((note) => (
              <TextNote key={note.id} note={note} item={item} editor={editor} editable={editable} />
            ))}
          </ul>
        </details>
      )}
      {gone.length > 0 && (
        <details class="gone-notes">
          <summary>Notes whose words were deleted ({gone.length})</summary>
          <ul aria-label="Notes whose words were deleted">
            {gone.map((note) => (
              <TextNote key={note.id} note={note} item={item} editor={editor} editable={false} />
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function TextNote({ note, item, editor, editable }: { note: NoteInText; item: ContentItem; editor: TipTap; editable: boolean }) {
  const { api, may } = useDesk();
  const thread = useLoad(() => ops.comments.thread(api, note.id), [note.id]);
  const comments = thread.data?.items ?? [];
  const [reply, setReply] = useState('');
  const [problem, setProblem] = useState<string>();
  const show = () => {
    const range = noteRange(editor.state.doc, note.id);
    if (range) editor.chain().focus().setTextSelection(range).run();
    else editor.view.dispatch(editor.state.tr.setSelection(TextSelection.atStart(editor.state.doc)));
  };
  return (
    <li class="text-note">
      <p class="on">
        On “{note.words}”{' '}
        {editable && (
          <button type="button" onClick={show}>
            Show in text
          </button>
        )}
      </p>
      <Problem message={thread.error} />
      <FlatThread comments={comments} />
      {may('NOTECOMMENT create') && (
        <form
          class="comment-form"
          onSubmit={async (event) => {
            event.preventDefault();
            if (!reply.trim()) return;
            const root = comments.find((c) => c.parent_id === '0');
            const failed = await attempt(() =>
              ops.comments.add(api, root?.uuid ?? 'root', { comment: paragraphsOf(reply), reference: note.id, version: Number(item.version) }),
            );
            setProblem(failed);
            if (!failed) {
              setReply('');
              thread.reload();
            }
          }}
        >
          <label>
            Answer the note on “{note.words}”
            <textarea rows={2} value={reply} onInput={(event) => setReply(event.currentTarget.value)} />
          </label>
          <button type="submit">Answer</button>
          <Problem message={problem} />
        </form>
      )}
      {editable && !note.resolved && (
        <button type="button" onClick={() => editor.view.dispatch(resolveNote(editor.state, note.id))} title="Hides the note; it stays on its words, with its thread">
          Resolve
        </button>
      )}
      {editable && note.resolved && (
        <button type="button" onClick={() => editor.view.dispatch(resolveNote(editor.state, note.id, false))}>
          Reopen
        </button>
      )}
    </li>
  );
}

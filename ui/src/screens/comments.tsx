// Note-comment threads beside the text (replies nested), and the comments
// on the item's assignment. Comments show as text: nothing in them runs.

import { useState } from 'preact/hooks';
import type { ContentItem, NoteComment } from '../api';
import { useDesk } from '../context';
import { attempt, Problem, useLoad } from '../load';
import { MissingPermission } from '../permission';
import { paragraphsOf, textOf } from '../text';
import { When } from '../when';
import * as ops from '../operations';

export function Comments({ item }: { item: ContentItem }) {
  const { api } = useDesk();
  const thread = useLoad(() => ops.comments.thread(api, item.uuid), [item.uuid]);
  const notes = thread.data?.items ?? [];
  const roots = notes.filter((n) => n.parent_id === '0');
  return (
    <section aria-labelledby="comments-heading" class="comments">
      <h2 id="comments-heading">Comments</h2>
      <Problem message={thread.error} />
      <ul class="thread">
        {roots.map((note) => (
          <Note note={note} all={notes} item={item} onPosted={thread.reload} key={note.uuid} />
        ))}
      </ul>
      <CommentForm label="New comment" parent="root" item={item} onPosted={thread.reload} />
      <AssignmentComments item={item} />
    </section>
  );
}

function Note({ note, all, item, onPosted }: { note: NoteComment; all: NoteComment[]; item: ContentItem; onPosted: () => void }) {
  const { may } = useDesk();
  const [replying, setReplying] = useState(false);
  const replies = all.filter((n) => n.parent_id === note.id);
  return (
    <li class="note">
      <p class="who">
        {note.user?.name ?? 'Someone'} · <When stamp={note.created_at} />
      </p>
      <p class="said">{textOf(note.comment)}</p>
      {/* Without the action, the thread's one note (under “New comment”) says why there is no Reply. */}
      {may('NOTECOMMENT create') && (
        <button type="button" aria-expanded={replying} onClick={() => setReplying(!replying)}>
          Reply
        </button>
      )}
      {replying && (
        <CommentForm
          label={`Reply to ${note.user?.name ?? 'this comment'}`}
          parent={note.uuid}
          item={item}
          onPosted={() => {
            setReplying(false);
            onPosted();
          }}
        />
      )}
      {replies.length > 0 && (
        <ul class="replies">
          {replies.map((reply) => (
            <Note note={reply} all={all} item={item} onPosted={onPosted} key={reply.uuid} />
          ))}
        </ul>
      )}
    </li>
  );
}

function CommentForm({ label, parent, item, onPosted }: { label: string; parent: string; item: ContentItem; onPosted: () => void }) {
  const { api, may } = useDesk();
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  if (!may('NOTECOMMENT create')) {
    return parent === 'root' ? <MissingPermission action="NOTECOMMENT create" doing="Commenting (or replying to a comment)" /> : null;
  }
  return (
    <form
      class="comment-form"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!text.trim()) return;
        const failed = await attempt(() =>
          ops.comments.add(api, parent, {
            comment: paragraphsOf(text),
            reference: item.uuid,
            version: Number(item.version),
          }),
        );
        setProblem(failed);
        if (!failed) {
          setText('');
          onPosted();
        }
      }}
    >
      <label>
        {label}
        <textarea rows={2} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </label>
      <button type="submit">Post</button>
      <Problem message={problem} />
    </form>
  );
}

/** Comments one under another, each with who wrote it and when (as text: nothing in them runs). */
export function FlatThread({ comments }: { comments: { uuid: string; comment: string; created_at: string; user?: { name: string } | null }[] }) {
  return (
    <ul class="thread">
      {comments.map((c) => (
        <li class="note" key={c.uuid}>
          <p class="who">
            {c.user?.name ?? 'Someone'} · <When stamp={c.created_at} />
          </p>
          <p class="said">{textOf(c.comment)}</p>
        </li>
      ))}
    </ul>
  );
}

function AssignmentComments({ item }: { item: ContentItem }) {
  const { api, may } = useDesk();
  const loaded = useLoad(async () => {
    // The item names its assignment by id; the service finds it by that id too.
    if (!item.assignment_id || !may('ASSIGNMENT get')) return undefined;
    const [assignment] = await ops.assignments.get(api, item.assignment_id);
    const comments = await ops.assignments.comments(api, assignment.uuid);
    return { assignment, comments: comments.items };
  }, [item.uuid, item.assignment_id]);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  const found = loaded.data;
  if (!found) return null;
  return (
    <section aria-labelledby="assignment-heading">
      <h3 id="assignment-heading">Assignment: {found.assignment.title}</h3>
      <FlatThread comments={found.comments} />
      <MissingPermission action="ASSIGNMENTCOMMENT create" doing="Commenting on the assignment" />
      {may('ASSIGNMENTCOMMENT create') && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const failed = await attempt(() =>
              ops.assignments.comment(api, found.assignment.uuid, { comment: paragraphsOf(text) }),
            );
            setProblem(failed);
            if (!failed) {
              setText('');
              loaded.reload();
            }
          }}
        >
          <label>
            Comment on the assignment <textarea rows={2} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          </label>
          <button type="submit">Post</button>
          <Problem message={problem} />
        </form>
      )}
    </section>
  );
}

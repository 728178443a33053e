// One story: its fields, the body in the rich-text editor with drafts saved
// every few seconds (and restored on reopen), versions with a readable diff,
// the lock, the attachment, and the comment threads beside the text.

import { useEffect, useRef, useState } from 'preact/hooks';
import { query, type Author, type ContentItem, type Draft, type MergedDraft, type Page, type RequestBody, type Tag } from '../api';
import { useDesk } from '../context';
import { textOf } from '../text';
import { fromRaw, parseRaw, toRaw, type PmNode } from '../draftjs';
import { attempt, Problem, useLoad } from '../load';
import { RichText, type Body } from '../rich-text';
import { AttachmentPanel } from './attachment';
import { Comments } from './comments';
import { Versions } from './versions';

/** Says when the text on screen holds someone else's changes merged with the edits made here by sync. */
function MergeNotice({ item }: { item: ContentItem }) {
  const last = item.audit?.[item.audit.length - 1];
  if (last?.action !== 'merged') return null;
  return (
    <p class="merge-notice" role="status">
      Merged at {last.created_at}: {last.detail}.
    </p>
  );
}

/** How often a changed body is saved as a draft. */
export const AUTOSAVE_MS = 3000;

export function Editor({ uuid }: { uuid: string }) {
  const { api } = useDesk();
  const [round, setRound] = useState(0);
  const loaded = useLoad(async () => {
    const item = await api.get<ContentItem>(`/v3/content/${uuid}`);
    const drafts = await api.get<Draft[]>(`/v3/draft${query({ content: item.srn })}`);
    const draft = drafts[0];
    // A draft of an older version is merged onto this one, paragraph by
    // paragraph and word by word, rather than dropped or restored over it.
    const merged =
      draft && Number(draft.version) < Number(item.version)
        ? await api.get<MergedDraft>(`/v3/draft/merged${query({ content: item.srn })}`).catch(() => undefined)
        : undefined;
    return { item, draft, merged };
  }, [uuid, round]);
  if (loaded.error) return <Problem message={loaded.error} />;
  if (!loaded.data) return <p class="loading">Opening…</p>;
  // A new version or a restore starts the editor afresh from the item.
  return (
    <Story
      key={`${loaded.data.item.version}-${round}`}
      item={loaded.data.item}
      draft={loaded.data.draft}
      merged={loaded.data.merged}
      reopen={() => setRound((r) => r + 1)}
    />
  );
}

/** What the editor reopens with instead of the saved text: a draft of this version, or an older one merged onto it. */
function reopened(item: ContentItem, draft?: Draft, merged?: MergedDraft) {
  if (draft && draft.version === item.version) {
    return { html: draft.content, raw: draft.content_raw, said: `Restored your draft from ${draft.created_at}.` };
  }
  if (merged) {
    const clashes = merged.conflicts.length;
    return {
      html: merged.content,
      raw: merged.content_raw,
      said:
        `Your draft from ${merged.draft.created_at} (on version ${merged.draft.version}) was merged with version ${merged.version}, ` +
        `which someone saved since.` +
        (clashes ? ` In ${clashes === 1 ? 'one paragraph' : `${clashes} paragraphs`} you both changed the same words: version ${merged.version}'s wording is kept, yours is shown below.` : ''),
    };
  }
  return undefined;
}

function Story({ item, draft, merged, reopen }: { item: ContentItem; draft?: Draft; merged?: MergedDraft; reopen: () => void }) {
  const { api, me, may } = useDesk();
  const restored = reopened(item, draft, merged);
  const restoredDoc = restored?.raw ? parseRaw(restored.raw) : undefined;
  const initial: PmNode | string = restoredDoc ? fromRaw(restoredDoc) : restored?.html || item.content || '<p></p>';
  const [title, setTitle] = useState(item.title);
  const [slug, setSlug] = useState(item.slug);
  const [summary, setSummary] = useState(item.abstract);
  const [authors, setAuthors] = useState(item.authors.map((a) => a.uuid));
  const [tags, setTags] = useState(item.tags.map((t) => t.uuid));
  const [urls, setUrls] = useState(item.urls.map((u) => u.url).join('\n'));
  const [published, setPublished] = useState(Boolean(item.published_at));
  const body = useRef<Body | undefined>(undefined);
  const unsaved = useRef(false);
  const [draftState, setDraftState] = useState(restored?.said ?? '');
  const [problem, setProblem] = useState<string>();
  const lockedByOther = item.lock_request && item.lock_request.user?.uuid !== me.user.uuid;
  const editable = may('CONTENT update') && !lockedByOther;

  const people = useLoad(
    async () => ({
      authors: (await api.get<Page<'Author'>>('/v3/author?per_page=200&order=name&dir=asc')).items,
      tags: (await api.get<Page<'Tag'>>('/v3/tag?per_page=200')).items,
    }),
    [],
  );

  // Autosave: a changed body becomes a draft every few seconds.
  useEffect(() => {
    const timer = setInterval(async () => {
      if (!unsaved.current || !body.current || !may('DRAFT create')) return;
      unsaved.current = false;
      const { html, doc } = body.current;
      const failed = await attempt(() =>
        api.post(`/v3/draft${query({ content: item.srn })}`, {
          content: html,
          content_raw: JSON.stringify(toRaw(doc)),
        } satisfies RequestBody<'Draft'>),
      );
      if (failed) {
        unsaved.current = true;
        setDraftState(`Draft not saved: ${failed}`);
      } else {
        setDraftState(`Draft saved at ${new Date().toLocaleTimeString()}.`);
      }
    }, AUTOSAVE_MS);
    return () => clearInterval(timer);
  }, [item.srn]);

  const saveVersion = async () => {
    const change: RequestBody<'Content'> = {
      title,
      slug,
      abstract: summary,
      authors,
      tags,
      urls: urls
        .split('\n')
        .map((u) => u.trim())
        .filter(Boolean),
    };
    if (body.current) {
      change.content = body.current.html;
      change.content_raw = JSON.stringify(toRaw(body.current.doc));
    } else if (restored) {
      // Reopened from a draft and not touched since: the draft is what is saved.
      change.content = restored.html;
      change.content_raw = restored.raw;
    }
    if (may('CONTENT publish') && published !== Boolean(item.published_at)) {
      change.published_at = published ? new Date().toISOString().replace(/\.\d+Z$/, 'Z') : null;
    }
    const failed = await attempt(() => api.put(`/v3/content/${item.uuid}`, change));
    setProblem(failed);
    if (!failed) {
      unsaved.current = false;
      reopen();
    }
  };

  const toggle = (list: string[], set: (l: string[]) => void, uuid: string) =>
    set(list.includes(uuid) ? list.filter((u) => u !== uuid) : [...list, uuid]);

  return (
    <div class="editor-layout">
      <article class="editor" aria-labelledby="story-heading">
        <p>
          <a href="#/content">← All content</a>
        </p>
        <h1 id="story-heading">
          {item.type} · version {item.version}
        </h1>
        <LockBanner item={item} onChange={reopen} />
        <MergeNotice item={item} />
        <Problem message={problem} />
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void saveVersion();
          }}
        >
          <label>
            Title <input name="title" value={title} disabled={!editable} onInput={(e) => setTitle(e.currentTarget.value)} />
          </label>
          <label>
            Slug <input name="slug" value={slug} disabled={!editable} onInput={(e) => setSlug(e.currentTarget.value)} />
          </label>
          <label>
            Abstract <textarea name="abstract" rows={2} value={summary} disabled={!editable} onInput={(e) => setSummary(e.currentTarget.value)} />
          </label>
          <RichText
            initial={initial}
            label="Body"
            editable={editable}
            onChange={(b) => {
              body.current = b;
              unsaved.current = true;
              setDraftState('Unsaved changes…');
            }}
          />
          <p class="draft-state" role="status" aria-live="polite">
            {draftState}
          </p>
          {(merged?.conflicts ?? []).length > 0 && (
            <section class="merge-conflicts" aria-label="Your wording where you both changed the same words">
              {merged?.conflicts.map((c) => (
                <p key={c.position}>
                  Paragraph {Number(c.position) + 1}: yours was “{textOf(c.mine)}”; the text has “{textOf(c.theirs)}”.
                </p>
              ))}
            </section>
          )}
          <Choices
            legend="Authors"
            noun="author"
            options={people.data?.authors ?? []}
            chosen={authors}
            disabled={!editable}
            onToggle={(uuid) => toggle(authors, setAuthors, uuid)}
            add={may('AUTHOR create') ? (name) => api.post<Author[]>('/v3/author', { name } satisfies RequestBody<'Author'>) : undefined}
            onAdded={(uuid) => {
              setAuthors([...authors, uuid]);
              people.reload();
            }}
          />
          <Choices
            legend="Tags"
            noun="tag"
            options={people.data?.tags ?? []}
            chosen={tags}
            disabled={!editable}
            onToggle={(uuid) => toggle(tags, setTags, uuid)}
            add={may('TAG create') ? (name) => api.post<Tag[]>('/v3/tag', { name } satisfies RequestBody<'Tag'>) : undefined}
            onAdded={(uuid) => {
              setTags([...tags, uuid]);
              people.reload();
            }}
          />
          <label>
            URLs (one path per line) <textarea name="urls" rows={2} value={urls} disabled={!editable} onInput={(e) => setUrls(e.currentTarget.value)} />
          </label>
          {may('CONTENT publish') && (
            <label class="check">
              <input type="checkbox" name="published" checked={published} disabled={!editable} onChange={(e) => setPublished(e.currentTarget.checked)} /> Published
            </label>
          )}
          <button type="submit" disabled={!editable}>
            Save as new version
          </button>
        </form>
        {item.type === 'media' || item.attachment ? <AttachmentPanel item={item} onChange={reopen} /> : null}
        <Versions item={item} onRestored={reopen} />
      </article>
      <aside class="side" aria-label="Comments">
        <Comments item={item} />
      </aside>
    </div>
  );
}

function LockBanner({ item, onChange }: { item: ContentItem; onChange: () => void }) {
  const { api, me, may } = useDesk();
  const [problem, setProblem] = useState<string>();
  const holder = item.lock_request;
  const mine = holder && holder.user?.uuid === me.user.uuid;
  return (
    <div class={holder && !mine ? 'banner locked' : 'banner'} role="region" aria-label="Lock">
      {!holder && <span>Nobody has this story locked.</span>}
      {mine && <span>You have this story locked: nobody else can change it.</span>}
      {holder && !mine && (
        <strong role="alert">
          {holder.user?.name ?? 'Someone'} is working on this story (locked since {holder.created_at}). You can read it but not change it.
        </strong>
      )}{' '}
      {!holder && may('LOCKREQUEST create') && (
        <button
          type="button"
          onClick={async () => {
            const failed = await attempt(() => api.post('/v3/lock-request', { srn: item.srn }));
            setProblem(failed);
            if (!failed) onChange();
          }}
        >
          Lock it for me
        </button>
      )}
      {holder && (mine || me.roles.includes('admin')) && (
        <button
          type="button"
          onClick={async () => {
            const failed = await attempt(() => api.delete(`/v3/lock-request/${holder.uuid}`));
            setProblem(failed);
            if (!failed) onChange();
          }}
        >
          Release the lock
        </button>
      )}
      <Problem message={problem} />
    </div>
  );
}

/** Checkboxes over authors or tags, and a field to add a new one for those allowed to. */
function Choices(props: {
  legend: string;
  noun: string;
  options: (Author | Tag)[];
  chosen: string[];
  disabled: boolean;
  onToggle: (uuid: string) => void;
  /** Makes a new one; the service answers it as a one-element list. */
  add?: (name: string) => Promise<(Author | Tag)[]>;
  onAdded: (uuid: string) => void;
}) {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string>();
  const adding = async () => {
    const add = props.add;
    if (!add || !name.trim()) return;
    let made: (Author | Tag)[] | undefined;
    const failed = await attempt(async () => {
      made = await add(name.trim());
    });
    setProblem(failed);
    const record = made?.[0];
    if (record) {
      setName('');
      props.onAdded(record.uuid);
    }
  };
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.options.length === 0 && <p class="hint">No {props.noun}s on this desk yet.</p>}
      {props.options.map((o) => (
        <label class="check" key={o.uuid}>
          <input type="checkbox" checked={props.chosen.includes(o.uuid)} disabled={props.disabled} onChange={() => props.onToggle(o.uuid)} /> {o.name}
        </label>
      ))}
      {props.add && !props.disabled && (
        <p class="inline-add">
          <label>
            New {props.noun}{' '}
            <input
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
              onKeyDown={(e) => {
                // Enter adds the name here rather than saving the whole story.
                if (e.key === 'Enter') {
                  e.preventDefault();
                  void adding();
                }
              }}
            />
          </label>{' '}
          <button type="button" onClick={() => void adding()}>
            Add {props.noun}
          </button>
        </p>
      )}
      <Problem message={problem} />
    </fieldset>
  );
}

// One story: its fields, the body in the rich-text editor with drafts saved
// every few seconds (and restored on reopen), versions with a readable diff,
// the lock, the attachment, and the comment threads beside the text.
//
// A draft is the writer's own: it holds the whole form (headline, abstract,
// body, slug, authors, tags, URLs, lead photo, the Published box), and
// someone else's unsaved draft in the same story is named, never restored.
// A version is saved with the version it was started from: when someone
// saved a newer one since, the service merges the two, and what cannot
// merge is shown, paragraph by paragraph, before anything is replaced.
//
// Nothing typed here is lost: every change is kept on this computer
// (src/unsaved.ts) until the service acknowledges a draft or a version that
// holds it, and comes back when the story is opened again. A refused save
// (someone else's lock, the sign-in, the server unreachable) keeps the text,
// says why, and is tried again when it can succeed. The lock is read again
// every few seconds, so the banner follows it. How and when each of these
// reaches the service is src/story-saving.ts; this screen shows what it says.

import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ContentItem, Draft, MergedDraft } from '../api';
import type { components } from '../schema';
import { useDesk } from '../context';
import { paragraphsOf, textOf } from '../text';
import { serviceTime } from '../time';
import { When } from '../when';
import { fromRaw, parseRaw, type PmNode } from '../draftjs';
import { attempt, Problem, useLoad } from '../load';
import { MissingPermission } from '../permission';
import { useNamedSearch } from '../picker';
import { RichText } from '../rich-text';
import { PhotoChooser } from '../photo-choice';
import { readUnsaved, type UnsavedText } from '../unsaved';
import { AttachmentPanel } from './attachment';
import { Comments } from './comments';
import { Review } from './review';
import { presenceWords, useAnnounce, useChangeOf, usePresence } from '../live';
import { LeadPhoto, useLeadNamed, type Lead } from './lead-photo';
import { StoryContainers } from './story-containers';
import { Versions } from './versions';
import { Choices, clock, CountsSpoken, countsOf, FIELD_NAMES, HeadlineCount, LockBanner, Offered, OthersUnsaved } from './story-panels';
import { formFrom, formOf } from '../story-form';
import { refusedSaveWords, useStorySaving, type Refusal } from '../story-saving';
import * as ops from '../operations';

type LockRequest = components['schemas']['LockRequest'];
type DraftFields = components['schemas']['DraftFields'];

/** Says when the text on screen holds someone else's changes merged with the edits made here by sync. */
function MergeNotice({ item }: { item: ContentItem }) {
  const last = item.audit?.[item.audit.length - 1];
  if (last?.action !== 'merged') return null;
  return (
    <p class="merge-notice" role="status">
      Merged at <When stamp={last.created_at} />: {last.detail}.
    </p>
  );
}

/** How often a story that could not be opened is tried again. */
const RETRY_OPEN_MS = 5000;

export function Editor({ uuid }: { uuid: string }) {
  const { api } = useDesk();
  const [round, setRound] = useState(0);
  const [adopted, setAdopted] = useState(false);
  // Why the editor was opened afresh, when a person should read it (a save merged instead of replaced).
  const [notice, setNotice] = useState<string>();
  const local = useLoad(() => readUnsaved(uuid).catch(() => undefined), [uuid, round]);
  const loaded = useLoad(async () => {
    const item = await ops.content.get(api, uuid);
    // The caller's own last draft, unless a version they saved since holds it.
    const drafts = await ops.drafts.last(api, item.srn);
    const draft = drafts.find((d) => !d.saved);
    // A draft of an older version is merged onto this one, paragraph by
    // paragraph and word by word, rather than dropped or restored over it.
    // A merge that cannot be read now is a story that cannot be opened now
    // (tried again), never a draft left out of the editor.
    const merged =
      draft && Number(draft.version) < Number(item.version)
        ? await ops.drafts.merged(api, item.srn)
        : undefined;
    return { item, draft, merged };
  }, [uuid, round]);
  // A story that could not be opened (the server unreachable) is tried again until it opens.
  useEffect(() => {
    if (!loaded.error) return;
    const timer = setTimeout(() => setRound((r) => r + 1), RETRY_OPEN_MS);
    return () => clearTimeout(timer);
  }, [loaded.error, round]);
  if (loaded.error) {
    return (
      <div>
        <Problem message={loaded.error} />
        <p class="hint">Trying again every few seconds.</p>
        {local.data && <KeptHere text={local.data} />}
      </div>
    );
  }
  // Both answers must be this round's: a Story made from the last round's item
  // and kept text would write that old text back.
  if (!loaded.data || loaded.loading || local.loading) return <p class="loading">Opening…</p>;
  // A new version or a restore starts the editor afresh from the item.
  return (
    <Story
      key={`${loaded.data.item.version}-${round}`}
      item={loaded.data.item}
      draft={loaded.data.draft}
      merged={loaded.data.merged}
      local={local.data}
      adopted={adopted}
      notice={notice}
      adopt={() => {
        setAdopted(true);
        setNotice(undefined);
        setRound((r) => r + 1);
      }}
      reopen={(why?: string) => {
        setAdopted(false);
        setNotice(why);
        setRound((r) => r + 1);
      }}
    />
  );
}


/** Text kept on this computer, shown while the story cannot be opened from the service. */
function KeptHere({ text }: { text: UnsavedText }) {
  return (
    <section class="panel kept-here" aria-label="Your text kept on this computer">
      <p>
        What you typed at {clock(text.at)} had not reached the server. It is kept on this computer and goes back into the editor, and to the server,
        as soon as the story opens again.
      </p>
      <h2>{text.title}</h2>
      {text.abstract && <p>{text.abstract}</p>}
      <div class="kept-text">{textOf(text.html)}</div>
    </section>
  );
}

/** What the editor reopens with instead of the saved text: a draft of this version, or an older one merged onto it. */
function reopened(item: ContentItem, draft?: Draft, merged?: MergedDraft): { html: string; raw: string; fields?: DraftFields; said: string } | undefined {
  if (draft && draft.version === item.version) {
    return { html: draft.content, raw: draft.content_raw, fields: draft.fields ?? undefined, said: `Restored your draft from ${serviceTime(draft.created_at)}.` };
  }
  if (merged) {
    const clashes = merged.conflicts.length + (merged.field_conflicts ?? []).length;
    return {
      html: merged.content,
      raw: merged.content_raw,
      fields: merged.fields ?? undefined,
      said:
        `Your draft from ${serviceTime(merged.draft.created_at)} (on version ${merged.draft.version}) was merged with version ${merged.version}, ` +
        `which someone saved since.` +
        (clashes
          ? ` In ${clashes === 1 ? 'one place' : `${clashes} places`} you both changed the same words: version ${merged.version}'s wording is kept, yours is shown below.`
          : ''),
    };
  }
  return undefined;
}


/**
 * Whether text kept on this computer goes straight back into the editor: it
 * was typed on the version the service has, and no draft the service holds
 * was saved well after it (from another computer). Otherwise it is offered.
 */
function restoresItself(local: UnsavedText, item: ContentItem, draft?: Draft): boolean {
  if (local.version !== item.version) return false;
  if (!draft) return true;
  const saved = Date.parse(`${draft.created_at.replace(' ', 'T')}Z`);
  return Number.isNaN(saved) || saved < local.at + 60_000;
}

/** A refused save in words: why, that the text is kept, and what to do. */
function RefusedSave({ refusal, lock }: { refusal: Refusal; lock?: LockRequest | null }) {
  return (
    <p class="problem refused-save" role="alert">
      {refusedSaveWords(refusal, lock)}
    </p>
  );
}

function Story(props: {
  item: ContentItem;
  draft?: Draft;
  merged?: MergedDraft;
  local?: UnsavedText;
  notice?: string;
  adopted: boolean;
  adopt: () => void;
  reopen: (why?: string) => void;
}) {
  const { item, draft, merged, local, reopen } = props;
  const { api, me, may } = useDesk();
  const restored = reopened(item, draft, merged);
  const fromLocal = local && (props.adopted || restoresItself(local, item, draft)) ? local : undefined;
  const offered = local && !fromLocal ? local : undefined;
  const startRaw = fromLocal?.bodyPending ? fromLocal.raw : restored?.raw;
  const startHtml = fromLocal?.bodyPending ? fromLocal.html : restored?.html;
  const restoredDoc = startRaw ? parseRaw(startRaw) : undefined;
  const initial: PmNode | string = restoredDoc ? fromRaw(restoredDoc) : startHtml || item.content || '<p></p>';
  // Opened from HTML: its blocks take the story's block keys where they say the same.
  const [keysFrom] = useState(() => (restoredDoc ? undefined : parseRaw(item.content_raw)));
  // The form as it opens: the story's own, under the draft's fields, under the headline and abstract kept here.
  const opened = formOf(item);
  const start = formFrom(item, restored?.fields);
  const [title, setTitle] = useState(fromLocal?.fieldsPending ? fromLocal.title : start.title);
  const [slug, setSlug] = useState(start.slug);
  const [summary, setSummary] = useState(fromLocal?.fieldsPending ? fromLocal.abstract : start.abstract);
  const [authors, setAuthors] = useState(start.authors);
  const [tags, setTags] = useState(start.tags);
  const [urls, setUrls] = useState(start.urls);
  const [published, setPublished] = useState(start.published);
  const [leadUuid, setLeadUuid] = useState<string | null>(start.lead);
  const [chosenLead, setChosenLead] = useState<Lead | null>(item.dominantAttachment ?? null);
  const lead = useLeadNamed(leadUuid, chosenLead);
  const [bodyText, setBodyText] = useState('');
  // Who else is in this story, and where; and where this window's cursor is.
  const [cursorAt, setCursorAt] = useState<string | null>(null);
  const everyone = usePresence(api);
  const here = everyone.filter((p) => p.content === item.uuid);
  const whoElse = presenceWords(here, me.user.uuid);
  const othersKey = JSON.stringify(here.filter((p) => p.user_uuid !== me.user.uuid && p.block).map((p) => [p.block, p.name, p.editing]));
  const othersHere = useMemo(
    () => (JSON.parse(othersKey) as [string, string, boolean][]).map(([block, name, isEditing]) => ({ block, name, editing: isEditing })),
    [othersKey],
  );
  // The aside beside the text, where the suggestions and notes panel goes.
  const [reviewSlot, setReviewSlot] = useState<HTMLDivElement | null>(null);
  // Stays until dismissed: the save the restore starts says "Draft saved"
  // within a moment, and the journalist should still learn where the text came from.
  const [restoredNote, setRestoredNote] = useState(
    props.notice ?? (fromLocal ? `Restored what you typed at ${clock(fromLocal.at)} that had not reached the server.` : undefined),
  );
  // Drafts, the lock, versions and what is kept on this computer (src/story-saving.ts).
  const saving = useStorySaving({
    item,
    api,
    me: me.user.uuid,
    may,
    reopen,
    offered: Boolean(offered),
    // The body the service holds for this version (its draft, or the item's own).
    serverHtml: restored?.html ?? item.content,
    startHtml,
    startRaw,
    // The form as the last draft the service took held it.
    drafted: restored?.fields ? start : undefined,
    kept: fromLocal,
    said: fromLocal ? '' : (restored?.said ?? ''),
    form: { title, abstract: summary, slug, authors, tags, urls, published, lead: leadUuid },
  });
  const { editable, lock, refusal } = saving;
  useAnnounce(api, item.uuid, cursorAt, editable && cursorAt !== null);
  // A change to this story (or a draft of it) read at once, not at the next look: a newer version opens in place when nothing here waits to be saved.
  // (A second later, so that this window's own save has reopened the story first.)
  useChangeOf(api, item.uuid, () => void saving.readLock(), 1000);

  // The names of the authors and tags on the story, and of each one picked here.
  const [names, setNames] = useState<Record<string, string>>(() =>
    Object.fromEntries([...item.authors, ...item.tags].map((record) => [record.uuid, record.name])),
  );
  const authorSearch = useNamedSearch('author');
  const tagSearch = useNamedSearch('tag');

  const toggle = (list: string[], set: (l: string[]) => void, uuid: string) =>
    set(list.includes(uuid) ? list.filter((u) => u !== uuid) : [...list, uuid]);

  return (
    <div class="editor-layout">
      <article class="editor" aria-labelledby="story-heading">
        <p>
          <a href="#/content">← All content</a>
        </p>
        <h1 id="story-heading">{title.trim() || 'Untitled story'}</h1>
        <p class="story-meta">
          {item.type} · version {item.version}
        </p>
        <LockBanner lock={lock} readOnly={saving.readOnly} waiting={saving.waiting} srn={item.srn} onChange={() => void saving.readLock()} />
        <MergeNotice item={item} />
        {refusal && <RefusedSave refusal={refusal} lock={lock} />}
        <Problem message={saving.problem} />
        <Problem message={saving.keepProblem} />
        {whoElse && (
          <p class="presence" role="status">
            {whoElse}
          </p>
        )}
        {saving.newer && (
          <p class="problem" role="alert">
            Someone saved version {saving.newer} while you were editing version {item.version}. Your text is kept. Saving merges your changes with theirs;
            where you both changed the same words, you see both before anything is replaced.
          </p>
        )}
        <OthersUnsaved others={saving.others} version={item.version} />
        {offered && <Offered local={offered} item={item} adopt={props.adopt} reopen={reopen} />}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void saving.saveVersion();
          }}
        >
          <label>
            Title{' '}
            <input
              name="title"
              value={title}
              disabled={!editable}
              aria-describedby="headline-count"
              onInput={(e) => setTitle(e.currentTarget.value)}
            />
          </label>
          <HeadlineCount title={title} type={item.type} />
          <label>
            Slug <input name="slug" value={slug} disabled={!editable} onInput={(e) => setSlug(e.currentTarget.value)} />
          </label>
          <label>
            Abstract{' '}
            <textarea
              name="abstract"
              rows={2}
              value={summary}
              disabled={!editable}
              aria-describedby="abstract-count"
              onInput={(e) => setSummary(e.currentTarget.value)}
            />
          </label>
          <p class="count" id="abstract-count">
            Abstract: {countsOf(summary)}
          </p>
          <RichText
            initial={initial}
            keysFrom={keysFrom}
            label="Body"
            editable={editable}
            onText={setBodyText}
            onStart={saving.bodyStarted}
            fileBase={api.connection.base}
            photos={(place) => (
              <>
                <MissingPermission action="CONTENT create" doing="Uploading a new photo (it becomes a media item)" />
                <PhotoChooser
                  titleFor={(file) => (title ? `Photo: ${title}` : file.name)}
                  using="Placing"
                  onChosen={(media) => place({ src: media.attachment.public_url, alt: media.title || media.attachment.base_name })}
                />
              </>
            )}
            onChange={saving.bodyChanged}
            suggester={{ author: me.user.name, newId: () => crypto.randomUUID(), now: () => new Date().toISOString() }}
            startNote={
              may('NOTECOMMENT create')
                ? (note, _words, said) =>
                    attempt(() => ops.comments.add(api, 'root', { comment: paragraphsOf(said), reference: note, version: Number(item.version) }))
                : undefined
            }
            review={(editor) => <Review editor={editor} item={item} editable={editable} />}
            reviewHost={reviewSlot}
            onCursorBlock={setCursorAt}
            othersHere={othersHere}
          />
          <p class="count" id="body-count">
            Body: {countsOf(bodyText)}
          </p>
          <CountsSpoken title={title} type={item.type} body={bodyText} />
          {restoredNote && (
            <p class="restored-note" role="status">
              {restoredNote}{' '}
              <button type="button" onClick={() => setRestoredNote(undefined)}>
                Dismiss
              </button>
            </p>
          )}
          <p class="draft-state" role="status" aria-live="polite">
            {saving.draftState}
          </p>
          {((merged?.conflicts ?? []).length > 0 || (merged?.field_conflicts ?? []).length > 0) && (
            <section class="merge-conflicts" aria-label="Your wording where you both changed the same words">
              {merged?.conflicts.map((c) => (
                <p key={c.position}>
                  Paragraph {Number(c.position) + 1}: yours was “{textOf(c.mine)}”; the text has “{textOf(c.theirs)}”.
                </p>
              ))}
              {(merged?.field_conflicts ?? []).map((c, i) => (
                <p key={i}>
                  {FIELD_NAMES[c.field] ?? c.field}: yours was “{textOf(c.mine)}”; the story has “{textOf(c.theirs)}”.{' '}
                  {c.field === 'title' && (
                    <button type="button" disabled={!editable} onClick={() => setTitle(c.mine)}>
                      Use my headline
                    </button>
                  )}
                  {c.field === 'abstract' && (
                    <button type="button" disabled={!editable} onClick={() => setSummary(c.mine)}>
                      Use my abstract
                    </button>
                  )}
                </p>
              ))}
            </section>
          )}
          <Choices
            legend="Authors"
            noun="author"
            names={names}
            chosen={authors}
            disabled={!editable}
            search={authorSearch}
            onToggle={(uuid) => toggle(authors, setAuthors, uuid)}
            add={may('AUTHOR create') ? (name) => ops.authors.create(api, { name }) : undefined}
            onAdded={(record) => {
              setNames((known) => ({ ...known, [record.uuid]: record.name }));
              setAuthors((list) => (list.includes(record.uuid) ? list : [...list, record.uuid]));
            }}
          />
          <Choices
            legend="Tags"
            noun="tag"
            names={names}
            chosen={tags}
            disabled={!editable}
            search={tagSearch}
            onToggle={(uuid) => toggle(tags, setTags, uuid)}
            add={may('TAG create') ? (name) => ops.tags.create(api, { name }) : undefined}
            onAdded={(record) => {
              setNames((known) => ({ ...known, [record.uuid]: record.name }));
              setTags((list) => (list.includes(record.uuid) ? list : [...list, record.uuid]));
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
          <MissingPermission action="CONTENT publish" doing="Publishing (or taking a story off the web)" />
          <MissingPermission action="CONTENT update" doing="Changing this story" />
          <button type="submit" disabled={!editable} aria-keyshortcuts="Control+S Meta+S">
            Save as new version
          </button>
        </form>
        {item.type === 'media' || item.attachment ? <AttachmentPanel item={item} onChange={reopen} /> : null}
        {item.type !== 'media' && (
          <LeadPhoto
            item={item}
            lead={lead}
            changed={leadUuid !== opened.lead}
            editable={editable}
            onChoose={(chosen) => {
              setChosenLead(chosen);
              setLeadUuid(chosen?.uuid ?? null);
            }}
          />
        )}
        <StoryContainers item={item} />
        <Versions item={item} onRestored={reopen} />
      </article>
      <aside class="side" aria-label="Notes and comments">
        <div ref={setReviewSlot} />
        <Comments item={item} />
      </aside>
    </div>
  );
}

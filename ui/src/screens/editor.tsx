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
// every few seconds, so the banner follows it.

import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError,
  explain,
  isTokenRefusal,
  type ContentItem,
  type Draft,
  type MergedDraft,
  type RequestBody,
} from '../api';
import type { components } from '../schema';
import { useDesk } from '../context';
import { textOf } from '../text';
import { serviceTime } from '../time';
import { When } from '../when';
import { fromRaw, parseRaw, toRaw, type PmNode } from '../draftjs';
import { Problem, useLoad } from '../load';
import { MissingPermission } from '../permission';
import { useNamedSearch } from '../picker';
import { RichText, type Body } from '../rich-text';
import { PhotoChooser } from '../photo-choice';
import { acknowledge, discardUnsaved, keepUnsaved, readUnsaved, type UnsavedText } from '../unsaved';
import { AttachmentPanel } from './attachment';
import { Comments } from './comments';
import { LeadPhoto, useLeadNamed, type Lead } from './lead-photo';
import { StoryContainers } from './story-containers';
import { Versions } from './versions';
import { Choices, clock, CountsSpoken, countsOf, FIELD_NAMES, HeadlineCount, holderName, LockBanner, Offered, OthersUnsaved } from './story-panels';
import { draftFields, formFrom, formOf, same, urlList, type Form } from '../story-form';
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

/** How often a changed body is saved as a draft. */
export const AUTOSAVE_MS = 3000;
/** How soon after a change the unsaved text is written to this computer. */
export const KEEP_AFTER_MS = 300;
/** How often the story's lock (and version) is read again while it is open. */
export const LOCK_POLL_MS = 5000;
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

/** Why the service refused a save, sorted by what the journalist can do about it. */
type Refusal = { kind: 'locked' | 'sign-in' | 'unreachable' | 'other'; words: string };

function refusalOf(err: unknown): Refusal {
  const words = explain(err);
  if (!(err instanceof ApiError)) return { kind: 'other', words };
  if (err.code === 'locked') return { kind: 'locked', words };
  if (err.code === 'unreachable' || err.code === 'offline' || err.status === 0 || err.status === 502 || err.status === 503 || err.status === 504) {
    return { kind: 'unreachable', words };
  }
  if (isTokenRefusal(err) || err.status === 401 || err.status === 403) return { kind: 'sign-in', words };
  return { kind: 'other', words };
}


/** A refused save in words: why, that the text is kept, and what to do. */
function RefusedSave({ refusal, lock }: { refusal: Refusal; lock?: LockRequest | null }) {
  const kept = 'What you typed stays here and is kept on this computer.';
  let said: string;
  switch (refusal.kind) {
    case 'locked':
      said = lock
        ? `Not saved: ${holderName(lock)} has this story locked since ${serviceTime(lock.created_at)}, so the server takes no changes from you. ${kept} It is saved as soon as they release the lock; ask them to, or wait.`
        : `Not saved: someone else has this story locked. ${kept} It is saved as soon as the lock is released.`;
      break;
    case 'sign-in':
      said = `Not saved: ${refusal.words} ${kept} Once you are signed in again, open this story and it is restored and saved.`;
      break;
    case 'unreachable':
      said = `Not saved: the server cannot be reached. ${kept} Keep writing: it is saved as soon as the server answers again.`;
      break;
    default:
      said = `Not saved: ${refusal.words} ${kept}`;
  }
  return (
    <p class="problem refused-save" role="alert">
      {said}
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
  // The body the service holds for this version (its draft, or the item's own).
  const serverHtml = useRef(restored?.html ?? item.content);
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
  const body = useRef<Body | undefined>(undefined);
  const form = useRef<Form>({ title, abstract: summary, slug, authors, tags, urls, published, lead: leadUuid });
  // The form as the last draft the service took held it.
  const drafted = useRef<Form | undefined>(restored?.fields ? start : undefined);
  const [draftState, setDraftState] = useState(fromLocal ? '' : (restored?.said ?? ''));
  // Stays until dismissed: the save the restore starts says "Draft saved"
  // within a moment, and the journalist should still learn where the text came from.
  const [restoredNote, setRestoredNote] = useState(
    props.notice ?? (fromLocal ? `Restored what you typed at ${clock(fromLocal.at)} that had not reached the server.` : undefined),
  );
  const [problem, setProblem] = useState<string>();
  const [refusal, setRefusal] = useState<Refusal>();
  const [keepProblem, setKeepProblem] = useState<string>();
  const [newer, setNewer] = useState<string>();
  // Other people's drafts of this story that no version holds yet.
  const [others, setOthers] = useState<Draft[]>([]);

  // The lock as last read from the service; a story opened while someone
  // else held it is read-only until they release it.
  const [lock, setLock] = useState<LockRequest | null>(item.lock_request ?? null);
  const lockNow = useRef(lock);
  const othersLock = (l: LockRequest | null | undefined) => Boolean(l && l.user?.uuid !== me.user.uuid);
  const [readOnly, setReadOnly] = useState(othersLock(item.lock_request));
  // While text kept here is offered (typed on an older version), the story
  // waits for a choice: typing now would write over the kept text.
  const editable = may('CONTENT update') && !readOnly && !offered;

  // What the service has not acknowledged yet: the newest text, also in IndexedDB.
  const pending = useRef<UnsavedText | undefined>(
    fromLocal ? { ...fromLocal, version: item.version, bodyPending: fromLocal.bodyPending && fromLocal.html !== serverHtml.current } : undefined,
  );
  const keepTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const writes = useRef<Promise<void>>(Promise.resolve());
  const saving = useRef(false);
  // A refused save on its way into a draft and a merged reopen: nothing else saves meanwhile.
  const merging = useRef(false);

  // The body as the editor started with it, for a draft of the form alone.
  const startBody = useRef<Body | undefined>(undefined);
  const rawNow = () => {
    const shown = body.current ?? (startRaw ? undefined : startBody.current);
    return shown ? JSON.stringify(toRaw(shown.doc)) : (startRaw ?? '');
  };

  /** Writes the pending text to this computer now (or forgets it when nothing is pending). */
  const persist = () => {
    clearTimeout(keepTimer.current);
    keepTimer.current = undefined;
    const p = pending.current;
    const write = p && (p.bodyPending || p.fieldsPending) ? () => keepUnsaved({ ...p, raw: p.bodyPending ? rawNow() : p.raw }) : () => discardUnsaved(item.uuid);
    writes.current = writes.current.then(write).then(
      () => setKeepProblem(undefined),
      (err) => setKeepProblem(`This browser could not keep a copy of your text (${err instanceof Error ? err.message : String(err)}); save before you close it.`),
    );
    return writes.current;
  };

  /** Whether the form differs from what the last draft held (or, with none, from the story). */
  const formWaits = () => !same(form.current, drafted.current ?? opened);

  /** Notes a change of the form or the body: pending at once, on this computer shortly after. */
  const noteChange = () => {
    const html = body.current?.html ?? pending.current?.html ?? startHtml ?? item.content;
    const at = Math.max(Date.now(), (pending.current?.at ?? 0) + 1);
    pending.current = {
      uuid: item.uuid,
      version: item.version,
      title: form.current.title,
      abstract: form.current.abstract,
      html,
      raw: pending.current?.raw ?? startRaw ?? '',
      bodyPending: html !== serverHtml.current,
      fieldsPending: formWaits(),
      at,
    };
    clearTimeout(keepTimer.current);
    keepTimer.current = setTimeout(() => void persist(), KEEP_AFTER_MS);
  };

  // Every change of the form goes into the pending text (and the next draft).
  const firstForm = useRef(true);
  useEffect(() => {
    form.current = { title, abstract: summary, slug, authors, tags, urls, published, lead: leadUuid };
    if (firstForm.current) {
      firstForm.current = false;
      return;
    }
    noteChange();
    setDraftState('Unsaved changes…');
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [title, summary, slug, authors, tags, urls, published, leadUuid]);

  /**
   * Saves the pending body and form as the writer's draft, unless a save is
   * under way or someone else's lock would refuse it. `now` saves even what
   * a draft already holds.
   */
  const saveDraft = async (now = false) => {
    const p = pending.current;
    if (saving.current || (merging.current && !now) || !may('DRAFT create')) return false;
    if (!now && !p?.bodyPending && !formWaits()) return false;
    if (othersLock(lockNow.current)) {
      setRefusal({ kind: 'locked', words: '' });
      setDraftState('Draft not saved: someone else has the story locked.');
      return false;
    }
    saving.current = true;
    try {
      await persist();
      const raw = rawNow();
      const html = body.current?.html ?? p?.html ?? startHtml ?? item.content;
      const sent = { ...form.current };
      await ops.drafts.save(api, item.srn, { content: html, content_raw: raw, fields: draftFields(sent, opened), version: Number(item.version) });
      serverHtml.current = html;
      drafted.current = sent;
      const later = pending.current;
      if (later && (!p || later.at === p.at)) pending.current = { ...later, bodyPending: false, fieldsPending: false };
      await writes.current;
      // The draft holds the whole form: what was kept here up to it is acknowledged.
      if (p) await acknowledge(item.uuid, p.at, 'all');
      setRefusal(undefined);
      setDraftState(`Draft saved at ${new Date().toLocaleTimeString()}.`);
      return true;
    } catch (err) {
      const why = refusalOf(err);
      setRefusal(why);
      setDraftState(`Draft not saved: ${why.kind === 'unreachable' ? 'the server cannot be reached' : why.words}`);
      if (why.kind === 'locked') void readLock();
      return false;
    } finally {
      saving.current = false;
    }
  };
  const saveDraftNow = useRef(saveDraft);
  saveDraftNow.current = saveDraft;

  /** Reads who else has unsaved text in the story. */
  const readOthers = async () => {
    if (!may('DRAFT list')) return;
    try {
      setOthers(await ops.drafts.others(api, item.srn));
    } catch {
      // Shown again at the next read; the story itself is unaffected.
    }
  };

  /** Reads the story's lock and version again; a lock released, or a server answering again, saves what is pending. */
  const readLock = async () => {
    let now: ContentItem;
    void readOthers();
    try {
      now = await ops.content.get(api, item.uuid);
    } catch (err) {
      const why = refusalOf(err);
      if (why.kind === 'unreachable' && pending.current?.bodyPending) setRefusal(why);
      return;
    }
    const was = lockNow.current;
    lockNow.current = now.lock_request ?? null;
    setLock(lockNow.current);
    if (!othersLock(lockNow.current)) setReadOnly(false);
    if (Number(now.version) > Number(item.version)) {
      // Someone saved a version since: start afresh from it when nothing here waits to be saved.
      if (!pending.current?.bodyPending && !pending.current?.fieldsPending && !drafted.current && !formWaits()) return reopen();
      setNewer(now.version);
    }
    if ((othersLock(was) && !othersLock(lockNow.current)) || refusal) void saveDraftNow.current();
  };
  const readLockNow = useRef(readLock);
  readLockNow.current = readLock;

  // Autosave: a changed body or form becomes a draft every few seconds; the lock is read again every few seconds.
  useEffect(() => {
    const saver = setInterval(() => void saveDraftNow.current(), AUTOSAVE_MS);
    const reader = setInterval(() => void readLockNow.current(), LOCK_POLL_MS);
    void readOthers();
    // Restored text goes to the service as soon as it takes it.
    if (pending.current) void persist().then(() => saveDraftNow.current());
    const flush = () => {
      if (keepTimer.current !== undefined) void persist();
    };
    window.addEventListener('pagehide', flush);
    return () => {
      clearInterval(saver);
      clearInterval(reader);
      window.removeEventListener('pagehide', flush);
      flush();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [item.srn]);

  // The names of the authors and tags on the story, and of each one picked here.
  const [names, setNames] = useState<Record<string, string>>(() =>
    Object.fromEntries([...item.authors, ...item.tags].map((record) => [record.uuid, record.name])),
  );
  const authorSearch = useNamedSearch('author');
  const tagSearch = useNamedSearch('tag');

  const saveVersion = async () => {
    if (!editable || saving.current || merging.current) return;
    // The version this text was started from: when someone saved a newer one
    // since, the service merges the two instead of replacing theirs.
    const change: RequestBody<'Content'> = {
      title,
      slug,
      abstract: summary,
      authors,
      tags,
      base_version: Number(item.version),
    };
    // URLs are not kept with versions, so only a change of them is sent.
    if (urls !== opened.urls) change.urls = urlList(urls);
    if (leadUuid !== opened.lead) change.dominantAttachment = leadUuid;
    if (body.current) {
      change.content = body.current.html;
      change.content_raw = rawNow();
    } else {
      // Not touched since it opened (from kept text, a draft, or the story's
      // own): that is what is saved, so the version holds the writer's text.
      change.content = startHtml ?? serverHtml.current;
      change.content_raw = startRaw ?? item.content_raw;
    }
    if (may('CONTENT publish') && published !== Boolean(item.published_at)) {
      change.published_at = published ? new Date().toISOString().replace(/\.\d+Z$/, 'Z') : null;
    }
    const at = pending.current?.at ?? 0;
    let saved: ContentItem | undefined;
    saving.current = true;
    try {
      await persist();
      saved = await ops.content.update(api, item.uuid, change);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'conflict') {
        merging.current = true;
        saving.current = false;
        await mergeThroughDraft(err);
        return;
      }
      const why = refusalOf(err);
      if (why.kind === 'other') setProblem(why.words);
      else {
        setProblem(undefined);
        setRefusal(why);
        if (why.kind === 'locked') void readLock();
      }
      return;
    } finally {
      saving.current = false;
    }
    setProblem(undefined);
    const typedSince = pending.current;
    if (typedSince && typedSince.at !== at) {
      // Typed while the version was on its way: newer than the version, so it
      // is kept, on the new version, for the reopened editor to restore.
      pending.current = { ...typedSince, version: (Array.isArray(saved) ? saved[0] : saved)?.version ?? item.version };
      await persist();
    } else {
      clearTimeout(keepTimer.current);
      keepTimer.current = undefined;
      pending.current = undefined;
    }
    await writes.current;
    await acknowledge(item.uuid, at, 'all').catch(() => undefined);
    reopen();
  };
  const saveVersionNow = useRef(saveVersion);
  saveVersionNow.current = saveVersion;

  // Ctrl/Cmd+S saves a version from anywhere in the story.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 's') {
        event.preventDefault();
        void saveVersionNow.current();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  /**
   * A save refused because someone saved a newer version and both changed
   * the same words: the text becomes this writer's draft, and the editor
   * reopens it merged onto the newer version, with each place both changed
   * shown (theirs in the text, this writer's beside it) before anything is
   * saved again.
   */
  const mergeThroughDraft = async (refused: ApiError) => {
    if (!(await saveDraftNow.current(true))) {
      merging.current = false;
      setProblem(`Not saved: ${refused.message}. Your text stays here; compare it with the newer version (Versions, below) before you save.`);
      return;
    }
    reopen(
      `Not saved yet: someone saved a newer version while you were editing version ${item.version}, and you both changed the same words. ` +
        'Your text is merged with theirs below; where you both changed the same words, their wording is in the text and yours is listed. Check it, then save again.',
    );
  };

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
        <LockBanner lock={lock} readOnly={readOnly} waiting={Boolean(pending.current?.bodyPending || pending.current?.fieldsPending)} srn={item.srn} onChange={() => void readLock()} />
        <MergeNotice item={item} />
        {refusal && <RefusedSave refusal={refusal} lock={lock} />}
        <Problem message={problem} />
        <Problem message={keepProblem} />
        {newer && (
          <p class="problem" role="alert">
            Someone saved version {newer} while you were editing version {item.version}. Your text is kept. Saving merges your changes with theirs;
            where you both changed the same words, you see both before anything is replaced.
          </p>
        )}
        <OthersUnsaved others={others} version={item.version} />
        {offered && <Offered local={offered} item={item} adopt={props.adopt} reopen={reopen} />}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void saveVersion();
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
            onStart={(b) => {
              startBody.current = b;
            }}
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
            onChange={(b) => {
              body.current = b;
              noteChange();
              setDraftState('Unsaved changes…');
            }}
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
            {draftState}
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
      <aside class="side" aria-label="Comments">
        <Comments item={item} />
      </aside>
    </div>
  );
}

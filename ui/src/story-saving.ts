// How an open story's text reaches the service: every change kept on this
// computer shortly after it is made, a changed body or form saved as the
// writer's draft every few seconds, the lock (and the story's version) read
// again every few seconds, a refused save kept and tried again when it can
// succeed, and "Save as new version". The editor (src/screens/editor.tsx)
// renders what `useStorySaving` answers and calls what it hands back.
//
// Three layers, so that Vitest can check each without a browser: the words
// and decisions are plain functions; `StorySaving` runs them against the
// service, this computer's store and a clock, each handed to it (the
// operations of src/operations.ts, src/unsaved.ts and the window's timers
// unless a test gives its own); `useStorySaving` wires it into Preact.

import { useEffect, useState } from 'preact/hooks';
import { ApiError, explain, isTokenRefusal, type Action, type Api, type ContentItem, type Draft, type RequestBody } from './api';
import type { components } from './schema';
import { toRaw } from './draftjs';
import type { Body } from './rich-text';
import { draftFields, formOf, same, urlList, type Form } from './story-form';
import { serviceTime } from './time';
import * as operations from './operations';
import * as unsaved from './unsaved';
import type { UnsavedText } from './unsaved';

type LockRequest = components['schemas']['LockRequest'];

/** How often a changed body is saved as a draft. */
export const AUTOSAVE_MS = 3000;
/** How soon after a change the unsaved text is written to this computer. */
export const KEEP_AFTER_MS = 300;
/** How often the story's lock (and version) is read again while it is open. */
export const LOCK_POLL_MS = 5000;

// ---------------------------------------------------------------------------
// Words and decisions: plain functions of what is known.

/** Why the service refused a save, sorted by what the journalist can do about it. */
export type Refusal = { kind: 'locked' | 'sign-in' | 'unreachable' | 'other'; words: string };

export function refusalOf(err: unknown): Refusal {
  const words = explain(err);
  if (!(err instanceof ApiError)) return { kind: 'other', words };
  if (err.code === 'locked') return { kind: 'locked', words };
  if (err.code === 'unreachable' || err.code === 'offline' || err.status === 0 || err.status === 502 || err.status === 503 || err.status === 504) {
    return { kind: 'unreachable', words };
  }
  if (isTokenRefusal(err) || err.status === 401 || err.status === 403) return { kind: 'sign-in', words };
  return { kind: 'other', words };
}

/** Who holds a lock, for people to read. */
export function holderName(lock: LockRequest): string {
  return lock.user?.name ?? 'Someone';
}

/** A refused save in words: why, that the text is kept, and what to do. */
export function refusedSaveWords(refusal: Refusal, lock?: LockRequest | null): string {
  const kept = 'What you typed stays here and is kept on this computer.';
  switch (refusal.kind) {
    case 'locked':
      return lock
        ? `Not saved: ${holderName(lock)} has this story locked since ${serviceTime(lock.created_at)}, so the server takes no changes from you. ${kept} It is saved as soon as they release the lock; ask them to, or wait.`
        : `Not saved: someone else has this story locked. ${kept} It is saved as soon as the lock is released.`;
    case 'sign-in':
      return `Not saved: ${refusal.words} ${kept} Once you are signed in again, open this story and it is restored and saved.`;
    case 'unreachable':
      return `Not saved: the server cannot be reached. ${kept} Keep writing: it is saved as soon as the server answers again.`;
    default:
      return `Not saved: ${refusal.words} ${kept}`;
  }
}

/** What the draft line says while a change waits for the next draft. */
export const UNSAVED_CHANGES = 'Unsaved changes…';
/** What the draft line says when someone else's lock is known to refuse the draft before it is sent. */
export const DRAFT_LOCKED_OUT = 'Draft not saved: someone else has the story locked.';

/** What the draft line says when a draft was saved at `at` (milliseconds since the epoch). */
export function draftSavedWords(at: number): string {
  return `Draft saved at ${new Date(at).toLocaleTimeString()}.`;
}

/** What the draft line says when the service refused a draft. */
export function draftRefusedWords(why: Refusal): string {
  return `Draft not saved: ${why.kind === 'unreachable' ? 'the server cannot be reached' : why.words}`;
}

/** What a version refused as clashing says when not even a draft of the text could be saved. */
export function mergeFailedWords(refused: ApiError): string {
  return `Not saved: ${refused.message}. Your text stays here; compare it with the newer version (Versions, below) before you save.`;
}

/** Why the editor reopens when a version clashed with a newer one and the text went into a draft merged onto it. */
export function mergedReopenWords(version: string): string {
  return (
    `Not saved yet: someone saved a newer version while you were editing version ${version}, and you both changed the same words. ` +
    'Your text is merged with theirs below; where you both changed the same words, their wording is in the text and yours is listed. Check it, then save again.'
  );
}

/** Why the editor reopens when a newer version arrived while the writer had unsaved text, merged into it. */
export function mergedInPlaceWords(was: string, now: string): string {
  return (
    `Someone saved version ${now} while you were editing version ${was}: their change is in the text now, merged with your unsaved words, which are kept. ` +
    'Nothing is saved as a version until you save.'
  );
}

/** Whether a lock is someone else's (none is nobody's). */
export function heldByOthers(lock: LockRequest | null | undefined, me: string): boolean {
  return Boolean(lock && lock.user?.uuid !== me);
}

/**
 * What a draft save does now: `wait` (a save is under way, a clash is being
 * merged, the writer may not save drafts, or nothing waits to be saved),
 * `locked` (someone else's lock would refuse it: it is not sent) or `send`.
 * `now` saves even what a draft already holds.
 */
export function draftStep(at: {
  saving: boolean;
  merging: boolean;
  now: boolean;
  mayDraft: boolean;
  bodyWaits: boolean;
  formWaits: () => boolean;
  othersLock: boolean;
}): 'wait' | 'locked' | 'send' {
  if (at.saving || (at.merging && !at.now) || !at.mayDraft) return 'wait';
  if (!at.now && !at.bodyWaits && !at.formWaits()) return 'wait';
  if (at.othersLock) return 'locked';
  return 'send';
}

/**
 * Whether reading the lock again saves what is pending: someone else's lock
 * was released, or the last save was refused (and may succeed now).
 */
export function savesAfterRead(wasOthers: boolean, isOthers: boolean, refused: boolean): boolean {
  return (wasOthers && !isOthers) || refused;
}

/**
 * The pending text after a change of the body or the form: the newest body,
 * headline and abstract, whether each still waits for the service, and a
 * moment later than anything pending before.
 */
export function changedText(at: {
  item: ContentItem;
  pending?: UnsavedText;
  form: Form;
  html: string;
  serverHtml: string;
  startRaw?: string;
  formWaits: boolean;
  now: number;
}): UnsavedText {
  return {
    uuid: at.item.uuid,
    version: at.item.version,
    title: at.form.title,
    abstract: at.form.abstract,
    html: at.html,
    raw: at.pending?.raw ?? at.startRaw ?? '',
    bodyPending: at.html !== at.serverHtml,
    fieldsPending: at.formWaits,
    at: Math.max(at.now, (at.pending?.at ?? 0) + 1),
  };
}

/**
 * The change "Save as new version" sends: the form, the body, and the
 * version it was started from (when someone saved a newer one since, the
 * service merges the two instead of replacing theirs).
 */
export function versionChange(at: {
  item: ContentItem;
  form: Form;
  opened: Form;
  body: { html: string; raw: string };
  mayPublish: boolean;
  now: number;
}): RequestBody<'Content'> {
  const { item, form, opened } = at;
  const change: RequestBody<'Content'> = {
    title: form.title,
    slug: form.slug,
    abstract: form.abstract,
    authors: form.authors,
    tags: form.tags,
    base_version: Number(item.version),
  };
  // URLs are not kept with versions, so only a change of them is sent.
  if (form.urls !== opened.urls) change.urls = urlList(form.urls);
  if (form.lead !== opened.lead) change.dominantAttachment = form.lead;
  change.content = at.body.html;
  change.content_raw = at.body.raw;
  if (at.mayPublish && form.published !== Boolean(item.published_at)) {
    change.published_at = form.published ? new Date(at.now).toISOString().replace(/\.\d+Z$/, 'Z') : null;
  }
  return change;
}

// ---------------------------------------------------------------------------
// What saving needs from outside, handed in so that tests can give their own.

/** The service's operations saving calls (those of src/operations.ts). */
export interface StoryOperations {
  content: Pick<typeof operations.content, 'get' | 'update'>;
  drafts: Pick<typeof operations.drafts, 'save' | 'others' | 'merged'>;
}

/** Where unsaved text is kept on this computer (src/unsaved.ts). */
export interface KeptTexts {
  keepUnsaved: (text: UnsavedText) => Promise<void>;
  discardUnsaved: (uuid: string) => Promise<void>;
  acknowledge: (uuid: string, at: number, what: 'body' | 'all') => Promise<void>;
}

/** The time and the timers saving runs on. */
export interface Clock {
  now: () => number;
  setTimeout: (run: () => void, ms: number) => unknown;
  clearTimeout: (timer: unknown) => void;
  setInterval: (run: () => void, ms: number) => unknown;
  clearInterval: (timer: unknown) => void;
}

export interface SavingDeps {
  operations: StoryOperations;
  kept: KeptTexts;
  clock: Clock;
}

type Timer = ReturnType<typeof setTimeout>;

/** The window's clock and timers, looked up at each call. */
export const windowClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer as Timer | undefined),
  setInterval: (run, ms) => setInterval(run, ms),
  clearInterval: (timer) => clearInterval(timer as Timer | undefined),
};

export const savingDeps: SavingDeps = { operations, kept: unsaved, clock: windowClock };

/** What the editor shows of saving; `StorySaving` says each change here. */
export interface SavingShown {
  draftState: (words: string) => void;
  refusal: (refusal: Refusal | undefined) => void;
  problem: (words: string | undefined) => void;
  keepProblem: (words: string | undefined) => void;
  newer: (version: string) => void;
  others: (drafts: Draft[]) => void;
  lock: (lock: LockRequest | null) => void;
  readOnly: (readOnly: boolean) => void;
}

/**
 * What the editor on screen holds as it was last drawn: each save reads the
 * one of the moment it began, as the editor's own handlers would.
 */
export interface SavingView {
  api: Api;
  /** The signed-in person's UUID. */
  me: string;
  may: (action: Action) => boolean;
  /** Opens the story afresh, saying why when a person should read it. */
  reopen: (why?: string) => void;
  /** The last refusal shown. */
  refusal: Refusal | undefined;
  /** Whether the text may be changed and saved now. */
  editable: boolean;
  /** The form on screen. */
  form: Form;
}

/** How the story opened, as far as saving is concerned. */
export interface SavingStart {
  item: ContentItem;
  /** The body the service holds for this version (its draft, or the item's own). */
  serverHtml: string;
  /** The body the editor opened with when not the item's own (kept text or a draft), as HTML and raw content. */
  startHtml?: string;
  startRaw?: string;
  /** The form the last draft the service took held, when the editor opened from one. */
  drafted?: Form;
  /** Text kept on this computer that the editor opened with. */
  kept?: UnsavedText;
  /**
   * The form on screen (as the story opens, for `StorySaving`). To the hook,
   * each field keeps its identity until it changes, as the editor's state
   * does: a new list each draw would be a change each draw.
   */
  form: Form;
  /** The signed-in person's UUID. */
  me: string;
}

// ---------------------------------------------------------------------------
// Saving one open story.

/**
 * The saving of one open story: what the service has not acknowledged yet
 * (also kept on this computer), the draft and version saves, and the lock
 * as last read. Made once per opened story; the editor hands it each view.
 */
export class StorySaving {
  /** The editor as last drawn. */
  view: SavingView;
  /** What the service has not acknowledged yet: the newest text, also kept on this computer. */
  pending: UnsavedText | undefined;
  /** The lock as last read. */
  lock: LockRequest | null;
  /** The body in the editor once changed, and as it started (for a draft of the form alone). */
  body: Body | undefined;
  startBody: Body | undefined;
  /** The form as the editor holds it after its last change. */
  form: Form;

  private readonly item: ContentItem;
  private readonly opened: Form;
  private readonly startHtml?: string;
  private readonly startRaw?: string;
  /** The body the service holds for this version. */
  private serverHtml: string;
  /** The form as the last draft the service took held it. */
  private drafted: Form | undefined;
  private keepTimer: unknown;
  private writes: Promise<void> = Promise.resolve();
  private saving = false;
  /** A refused save on its way into a draft and a merged reopen: nothing else saves meanwhile. */
  private merging = false;
  /**
   * Reopened or stopped: the editor holding this is going or gone, and a
   * new one may already hold the story. A read or save still in flight
   * changes nothing then, and what is kept on this computer is the new
   * editor's.
   */
  private closed = false;
  /** When a merge in place was last tried, and the newer version it found would not merge without a choice. */
  private mergeTriedAt = -Infinity;
  private mergeNeedsChoice: string | undefined;
  /** A merge in place under way: a save asked for meanwhile waits for it. */
  private mergeRun: Promise<boolean> | undefined;
  private firstForm = true;

  constructor(
    start: SavingStart,
    view: SavingView,
    private readonly show: SavingShown,
    private readonly deps: SavingDeps = savingDeps,
  ) {
    const { item, kept } = start;
    this.item = item;
    this.view = view;
    this.opened = formOf(item);
    this.startHtml = start.startHtml;
    this.startRaw = start.startRaw;
    this.serverHtml = start.serverHtml;
    this.drafted = start.drafted;
    this.form = start.form;
    this.lock = item.lock_request ?? null;
    this.pending = kept ? { ...kept, version: item.version, bodyPending: kept.bodyPending && kept.html !== this.serverHtml } : undefined;
  }

  /** Whether what is pending waits for the service (someone else's lock holds it back). */
  get waiting(): boolean {
    return Boolean(this.pending?.bodyPending || this.pending?.fieldsPending);
  }

  /** The body's Draft.js raw content as it is now. */
  private rawNow(): string {
    const shown = this.body ?? (this.startRaw ? undefined : this.startBody);
    return shown ? JSON.stringify(toRaw(shown.doc)) : (this.startRaw ?? '');
  }

  /** Writes the pending text to this computer now (or forgets it when nothing is pending). */
  persist(): Promise<void> {
    const { kept, clock } = this.deps;
    clock.clearTimeout(this.keepTimer);
    this.keepTimer = undefined;
    const p = this.pending;
    const waits = Boolean(p && (p.bodyPending || p.fieldsPending));
    // Closed, this editor may keep words typed at its last moment, but never forgets the new editor's.
    if (this.closed && !waits) return this.writes;
    const write =
      p && waits
        ? () => kept.keepUnsaved({ ...p, raw: p.bodyPending ? this.rawNow() : p.raw })
        : () => kept.discardUnsaved(this.item.uuid);
    this.writes = this.writes.then(write).then(
      () => this.show.keepProblem(undefined),
      (err) => this.show.keepProblem(`This browser could not keep a copy of your text (${err instanceof Error ? err.message : String(err)}); save before you close it.`),
    );
    return this.writes;
  }

  /** Writes what is pending to this computer when a write is due (the page is going away). */
  flush(): void {
    if (this.keepTimer !== undefined) void this.persist();
  }

  /** Whether the form differs from what the last draft held (or, with none, from the story). */
  private formWaits(): boolean {
    return !same(this.form, this.drafted ?? this.opened);
  }

  /** Notes a change of the form or the body: pending at once, on this computer shortly after. */
  private noteChange(): void {
    const { clock } = this.deps;
    const html = this.body?.html ?? this.pending?.html ?? this.startHtml ?? this.item.content;
    this.pending = changedText({
      item: this.item,
      pending: this.pending,
      form: this.form,
      html,
      serverHtml: this.serverHtml,
      startRaw: this.startRaw,
      formWaits: this.formWaits(),
      now: clock.now(),
    });
    clock.clearTimeout(this.keepTimer);
    this.keepTimer = clock.setTimeout(() => void this.persist(), KEEP_AFTER_MS);
  }

  /** The body in the editor, as it starts. */
  bodyStarted(body: Body): void {
    this.startBody = body;
  }

  /** The body in the editor changed. */
  bodyChanged(body: Body): void {
    this.body = body;
    this.noteChange();
    this.show.draftState(UNSAVED_CHANGES);
  }

  /** The form on screen changed (the first call is the form as it opened, and no change). */
  formChanged(form: Form): void {
    this.form = form;
    if (this.firstForm) {
      this.firstForm = false;
      return;
    }
    this.noteChange();
    this.show.draftState(UNSAVED_CHANGES);
  }

  /**
   * Saves the pending body and form as the writer's draft, unless a save is
   * under way or someone else's lock would refuse it. `now` saves even what
   * a draft already holds. Answers whether the service took it.
   */
  async saveDraft(now = false, view: SavingView = this.view): Promise<boolean> {
    const { operations: ops, kept, clock } = this.deps;
    if (this.closed) return false;
    const p = this.pending;
    const step = draftStep({
      saving: this.saving,
      merging: this.merging,
      now,
      mayDraft: view.may('DRAFT create'),
      bodyWaits: Boolean(p?.bodyPending),
      formWaits: () => this.formWaits(),
      othersLock: heldByOthers(this.lock, view.me),
    });
    if (step === 'wait') return false;
    if (step === 'locked') {
      this.show.refusal({ kind: 'locked', words: '' });
      this.show.draftState(DRAFT_LOCKED_OUT);
      return false;
    }
    this.saving = true;
    try {
      await this.persist();
      const raw = this.rawNow();
      const html = this.body?.html ?? p?.html ?? this.startHtml ?? this.item.content;
      const sent = { ...this.form };
      await ops.drafts.save(view.api, this.item.srn, {
        content: html,
        content_raw: raw,
        fields: draftFields(sent, this.opened),
        version: Number(this.item.version),
      });
      this.serverHtml = html;
      this.drafted = sent;
      const later = this.pending;
      if (later && (!p || later.at === p.at)) this.pending = { ...later, bodyPending: false, fieldsPending: false };
      await this.writes;
      // The draft holds the whole form: what was kept here up to it is acknowledged.
      if (p) await kept.acknowledge(this.item.uuid, p.at, 'all');
      this.show.refusal(undefined);
      this.show.draftState(draftSavedWords(clock.now()));
      return true;
    } catch (err) {
      const why = refusalOf(err);
      this.show.refusal(why);
      this.show.draftState(draftRefusedWords(why));
      if (why.kind === 'locked') void this.readLock(view);
      return false;
    } finally {
      this.saving = false;
    }
  }

  /** Reads who else has unsaved text in the story. */
  async readOthers(view: SavingView = this.view): Promise<void> {
    if (!view.may('DRAFT list')) return;
    try {
      this.show.others(await this.deps.operations.drafts.others(view.api, this.item.srn));
    } catch {
      // Shown again at the next read; the story itself is unaffected.
    }
  }

  /** Reads the story's lock and version again; a lock released, or a server answering again, saves what is pending. */
  async readLock(view: SavingView = this.view): Promise<void> {
    if (this.closed) return;
    let now: ContentItem;
    void this.readOthers(view);
    try {
      now = await this.deps.operations.content.get(view.api, this.item.uuid);
      // Reopened meanwhile, or this editor's own version on its way in.
      if (this.closed || this.saving) return;
    } catch (err) {
      const why = refusalOf(err);
      if (why.kind === 'unreachable' && this.pending?.bodyPending) this.show.refusal(why);
      return;
    }
    const was = this.lock;
    this.lock = now.lock_request ?? null;
    this.show.lock(this.lock);
    if (!heldByOthers(this.lock, view.me)) this.show.readOnly(false);
    if (Number(now.version) > Number(this.item.version)) {
      // Someone saved a version since: start afresh from it when nothing here waits to be saved,
      // and merge what waits into it when something does.
      if (!this.waitsHere()) return this.reopenWith(view);
      if (await this.mergeInPlace(now.version, view)) return;
      this.show.newer(now.version);
    }
    if (savesAfterRead(heldByOthers(was, view.me), heldByOthers(this.lock, view.me), Boolean(view.refusal))) void this.saveDraft();
  }

  /** Whether anything typed or chosen here is not in the version the editor opened. */
  private waitsHere(): boolean {
    return Boolean(this.pending?.bodyPending || this.pending?.fieldsPending || this.drafted || this.formWaits());
  }

  /**
   * A newer version arrived while something here waits to be saved: the
   * text becomes this writer's draft, and the editor reopens on the newer
   * version with the draft merged onto it by the service's three-way merge
   * (GET /v3/draft/merged), so the other writer's change shows at once and
   * nothing typed here is lost. Answers false, changing nothing, when that
   * cannot happen now (a save under way, a draft refused, or words typed
   * while the draft was on its way): the warning stands and the merge waits
   * for the next read or the save.
   */
  private async mergeInPlace(version: string, view: SavingView): Promise<boolean> {
    const { clock } = this.deps;
    if (this.saving || this.merging || this.closed || !view.may('DRAFT create') || heldByOthers(this.lock, view.me)) return false;
    // One try every few seconds (each draft is a change every window of the story hears), none once it needs a choice.
    if (this.mergeNeedsChoice === version || clock.now() - this.mergeTriedAt < LOCK_POLL_MS) return false;
    this.mergeTriedAt = clock.now();
    this.mergeRun = this.mergeNow(version, view);
    try {
      return await this.mergeRun;
    } finally {
      this.mergeRun = undefined;
    }
  }

  /** The merge in place itself (see `mergeInPlace`). */
  private async mergeNow(version: string, view: SavingView): Promise<boolean> {
    const { operations: ops } = this.deps;
    this.merging = true;
    try {
      const typedBefore = this.pending?.at;
      if (!(await this.saveDraft(true, view))) return false;
      if (this.closed || this.pending?.at !== typedBefore || this.pending?.bodyPending || this.pending?.fieldsPending) return false;
      // Where both changed the same words the writer chooses, as when a save meets a newer version: that waits for Save.
      const merged = await ops.drafts.merged(view.api, this.item.srn).catch(() => undefined);
      if (!merged || merged.conflicts.length > 0 || (merged.field_conflicts ?? []).length > 0) {
        if (merged) this.mergeNeedsChoice = version;
        return false;
      }
      if (this.closed || this.pending?.at !== typedBefore) return false;
      this.reopenWith(view, mergedInPlaceWords(this.item.version, version));
      return true;
    } finally {
      this.merging = false;
    }
  }

  /** Hands the story to a new editor: this one reads and saves no more. */
  private reopenWith(view: SavingView, why?: string): void {
    this.closed = true;
    if (why === undefined) view.reopen();
    else view.reopen(why);
  }

  /**
   * Starts the story's saving: a draft every few seconds, the lock read
   * every few seconds, and text restored from this computer sent at once.
   * Answers what stops the timers.
   */
  start(view: SavingView = this.view): () => void {
    const { clock } = this.deps;
    const saver = clock.setInterval(() => void this.saveDraft(), AUTOSAVE_MS);
    const reader = clock.setInterval(() => void this.readLock(), LOCK_POLL_MS);
    void this.readOthers(view);
    // Restored text goes to the service as soon as it takes it.
    if (this.pending) void this.persist().then(() => this.saveDraft());
    return () => {
      this.closed = true;
      clock.clearInterval(saver);
      clock.clearInterval(reader);
    };
  }

  /** Saves the form and the body as a new version of the story, then opens it afresh. */
  async saveVersion(view: SavingView = this.view): Promise<void> {
    const { operations: ops, kept, clock } = this.deps;
    // Asked for while a newer version is being merged in: after it, unless it reopened the editor.
    if (this.mergeRun) await this.mergeRun;
    if (!view.editable || this.saving || this.merging || this.closed) return;
    const change = versionChange({
      item: this.item,
      form: view.form,
      opened: this.opened,
      // Not touched since it opened (from kept text, a draft, or the story's
      // own): that is what is saved, so the version holds the writer's text.
      body: this.body
        ? { html: this.body.html, raw: this.rawNow() }
        : { html: this.startHtml ?? this.serverHtml, raw: this.startRaw ?? this.item.content_raw },
      mayPublish: view.may('CONTENT publish'),
      now: clock.now(),
    });
    const at = this.pending?.at ?? 0;
    let saved: ContentItem | undefined;
    this.saving = true;
    try {
      await this.persist();
      saved = await ops.content.update(view.api, this.item.uuid, change);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'conflict') {
        this.merging = true;
        this.saving = false;
        await this.mergeThroughDraft(err, view);
        return;
      }
      this.saving = false;
      const why = refusalOf(err);
      if (why.kind === 'other') this.show.problem(why.words);
      else {
        this.show.problem(undefined);
        this.show.refusal(why);
        if (why.kind === 'locked') void this.readLock(view);
      }
      return;
    }
    // Saved: still saving until the editor reopens on the new version, so
    // that a read answering meanwhile does not take it for someone else's.
    this.show.problem(undefined);
    const typedSince = this.pending;
    if (typedSince && typedSince.at !== at) {
      // Typed while the version was on its way: newer than the version, so it
      // is kept, on the new version, for the reopened editor to restore.
      this.pending = { ...typedSince, version: (Array.isArray(saved) ? saved[0] : saved)?.version ?? this.item.version };
      await this.persist();
    } else {
      clock.clearTimeout(this.keepTimer);
      this.keepTimer = undefined;
      this.pending = undefined;
    }
    await this.writes;
    await kept.acknowledge(this.item.uuid, at, 'all').catch(() => undefined);
    this.reopenWith(view);
  }

  /**
   * A save refused because someone saved a newer version and both changed
   * the same words: the text becomes this writer's draft, and the editor
   * reopens it merged onto the newer version, with each place both changed
   * shown (theirs in the text, this writer's beside it) before anything is
   * saved again.
   */
  private async mergeThroughDraft(refused: ApiError, view: SavingView): Promise<void> {
    if (!(await this.saveDraft(true))) {
      this.merging = false;
      this.show.problem(mergeFailedWords(refused));
      return;
    }
    this.reopenWith(view, mergedReopenWords(this.item.version));
  }
}

// ---------------------------------------------------------------------------
// The Preact hook.

/** What the editor needs to start saving a story and to save it as it changes. */
export interface StorySavingProps extends SavingStart {
  api: Api;
  may: (action: Action) => boolean;
  reopen: (why?: string) => void;
  /** Text kept here is offered instead of restored: the story waits for a choice and takes no typing. */
  offered: boolean;
  /** What the draft line says as the story opens. */
  said: string;
}

/** What the editor shows of saving, and what it calls. */
export interface StorySavingState {
  draftState: string;
  refusal: Refusal | undefined;
  problem: string | undefined;
  keepProblem: string | undefined;
  /** A newer version someone saved while this one is open. */
  newer: string | undefined;
  /** Other people's drafts of this story that no version holds yet. */
  others: Draft[];
  /** The lock as last read. */
  lock: LockRequest | null;
  /** Opened while someone else held the lock, and not released since. */
  readOnly: boolean;
  /** Whether the text may be changed and saved. */
  editable: boolean;
  /** Whether typed text waits for the service. */
  waiting: boolean;
  bodyStarted: (body: Body) => void;
  bodyChanged: (body: Body) => void;
  saveVersion: () => Promise<void>;
  readLock: () => Promise<void>;
}

/**
 * Saves an open story as the editor changes it: `props.form` is the form on
 * screen, the body comes through `bodyChanged`. Made once per story (the
 * editor opens a story afresh under a new key); `deps` are the service's
 * operations, this computer's store and the clock.
 */
export function useStorySaving(props: StorySavingProps, deps: SavingDeps = savingDeps): StorySavingState {
  const { item, form } = props;
  const [draftState, setDraftState] = useState(props.said);
  const [problem, setProblem] = useState<string>();
  const [refusal, setRefusal] = useState<Refusal>();
  const [keepProblem, setKeepProblem] = useState<string>();
  const [newer, setNewer] = useState<string>();
  const [others, setOthers] = useState<Draft[]>([]);
  // The lock as last read from the service; a story opened while someone
  // else held it is read-only until they release it.
  const [lock, setLock] = useState<LockRequest | null>(item.lock_request ?? null);
  const [readOnly, setReadOnly] = useState(heldByOthers(item.lock_request, props.me));
  // While text kept here is offered (typed on an older version), the story
  // waits for a choice: typing now would write over the kept text.
  const editable = props.may('CONTENT update') && !readOnly && !props.offered;
  const view: SavingView = { api: props.api, me: props.me, may: props.may, reopen: props.reopen, refusal, editable, form };
  const [saving] = useState(
    () =>
      new StorySaving(
        props,
        view,
        {
          draftState: setDraftState,
          refusal: setRefusal,
          problem: setProblem,
          keepProblem: setKeepProblem,
          newer: setNewer,
          others: setOthers,
          lock: setLock,
          readOnly: setReadOnly,
        },
        deps,
      ),
  );
  saving.view = view;

  // Every change of the form goes into the pending text (and the next draft).
  useEffect(() => {
    saving.formChanged(form);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [form.title, form.abstract, form.slug, form.authors, form.tags, form.urls, form.published, form.lead]);

  // Autosave: a changed body or form becomes a draft every few seconds; the lock is read again every few seconds.
  useEffect(() => {
    const stop = saving.start(view);
    const flush = () => saving.flush();
    window.addEventListener('pagehide', flush);
    return () => {
      stop();
      window.removeEventListener('pagehide', flush);
      flush();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [item.srn]);

  // Ctrl/Cmd+S saves a version from anywhere in the story.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 's') {
        event.preventDefault();
        void saving.saveVersion();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [saving]);

  return {
    draftState,
    refusal,
    problem,
    keepProblem,
    newer,
    others,
    lock,
    readOnly,
    editable,
    waiting: saving.waiting,
    bodyStarted: (body) => saving.bodyStarted(body),
    bodyChanged: (body) => saving.bodyChanged(body),
    saveVersion: () => saving.saveVersion(view),
    readLock: () => saving.readLock(view),
  };
}

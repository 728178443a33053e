// Stand-ins for what a story's saving talks to (src/story-saving.ts): the
// service's operations, this computer's store of unsaved text and a clock
// whose timers run only when a test moves it on. Each records its calls in
// one log, so a test can check what happened and in which order.

import { vi } from 'vitest';
import type { Api, ContentItem, Draft, MergedDraft, User } from '../src/api';
import type { components } from '../src/schema';
import type { Body } from '../src/rich-text';
import { formOf, type Form } from '../src/story-form';
import type { UnsavedText } from '../src/unsaved';
import type { Clock, KeptTexts, Refusal, SavingShown, StoryOperations } from '../src/story-saving';

type LockRequest = components['schemas']['LockRequest'];

/** A story as the service answers it, version 2, unlocked. */
export function aStory(over: Partial<ContentItem> = {}): ContentItem {
  return {
    uuid: 'c0ffee00-0000-4000-8000-000000000001',
    srn: 'srn:copydesk:content:c0ffee00-0000-4000-8000-000000000001',
    version: '2',
    type: 'article',
    title: 'Night ferry',
    abstract: 'The last crossing of the day.',
    slug: 'night-ferry',
    content: '<p>The ferry sails.</p>',
    content_raw: '{"blocks":[{"key":"f3rry","text":"The ferry sails.","type":"unstyled","depth":0,"inlineStyleRanges":[],"entityRanges":[]}],"entityMap":{}}',
    published_at: null,
    authors: [],
    tags: [],
    urls: [],
    lock_request: null,
    audit: [],
    versions: [],
    ...over,
  } as unknown as ContentItem;
}

/** Someone else's lock on the story. */
export function danasLock(story: ContentItem): LockRequest {
  return {
    id: '7',
    uuid: 'l0ck0000-0000-4000-8000-000000000007',
    srn: story.srn,
    user_id: '9',
    state: 'active',
    created_at: '2025-06-03 17:58:00',
    modified_at: '2025-06-03 17:58:00',
    user: { uuid: 'dana', name: 'Dana Desk' } as User,
  };
}

/** A body as the rich-text editor hands it over: one paragraph. */
export function typed(words: string): Body {
  return {
    html: `<p>${words}</p>`,
    doc: { type: 'doc', content: [{ type: 'paragraph', attrs: { blockKey: 'b0dy1' }, content: [{ type: 'text', text: words }] }] },
  };
}

/** A clock whose timers run, in order, only when `advance` moves it past them. */
export class TestClock implements Clock {
  time = Date.UTC(2025, 5, 3, 18, 0, 0);
  private next = 1;
  private timers = new Map<number, { at: number; run: () => void; every?: number }>();

  now = () => this.time;
  setTimeout = (run: () => void, ms: number) => this.add(run, ms);
  clearTimeout = (timer: unknown) => void this.timers.delete(timer as number);
  setInterval = (run: () => void, ms: number) => this.add(run, ms, ms);
  clearInterval = (timer: unknown) => void this.timers.delete(timer as number);

  private add(run: () => void, ms: number, every?: number): number {
    const id = this.next++;
    this.timers.set(id, { at: this.time + ms, run, every });
    return id;
  }

  /** How many timers are set. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves the clock on by `ms`, running each timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= end).sort(([a, x], [b, y]) => x.at - y.at || a - b)[0];
      if (!due) break;
      const [id, timer] = due;
      this.time = timer.at;
      if (timer.every) timer.at += timer.every;
      else this.timers.delete(id);
      timer.run();
    }
    this.time = end;
  }
}

/** Lets every promise the fakes answered run on (they answer within the current task). */
export const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** A promise a test settles when it chooses: a service that is slow to answer. */
export function held<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** This computer's unsaved text in memory, keeping and acknowledging as src/unsaved.ts does. */
export function memoryStore(log: string[]): KeptTexts & { texts: Map<string, UnsavedText> } {
  const texts = new Map<string, UnsavedText>();
  return {
    texts,
    keepUnsaved: async (text) => {
      log.push('keep');
      texts.set(text.uuid, text);
    },
    discardUnsaved: async (uuid) => {
      log.push('discard');
      texts.delete(uuid);
    },
    acknowledge: async (uuid, at, what) => {
      log.push(`acknowledge ${what}`);
      const kept = texts.get(uuid);
      if (!kept || kept.at > at) return;
      if (what === 'all' || !kept.fieldsPending) texts.delete(uuid);
      else texts.set(uuid, { ...kept, bodyPending: false });
    },
  };
}

/** The service's operations, answering as an unlocked story at `story` would unless a test says otherwise. */
export function fakeService(story: ContentItem, log: string[]) {
  return {
    content: {
      get: vi.fn<StoryOperations['content']['get']>(async () => {
        log.push('content.get');
        return story;
      }),
      update: vi.fn<StoryOperations['content']['update']>(async () => {
        log.push('content.update');
        return { ...story, version: String(Number(story.version) + 1) };
      }),
    },
    drafts: {
      save: vi.fn<StoryOperations['drafts']['save']>(async () => {
        log.push('drafts.save');
        return undefined;
      }),
      others: vi.fn<StoryOperations['drafts']['others']>(async () => {
        log.push('drafts.others');
        return [] as Draft[];
      }),
      // The writer's draft merged onto the newer version, cleanly unless a test says otherwise.
      merged: vi.fn<StoryOperations['drafts']['merged']>(async () => {
        log.push('drafts.merged');
        return { conflicts: [], field_conflicts: [] } as unknown as MergedDraft;
      }),
    },
  };
}

/** What the editor would show, as saving last said it. */
export interface Screen {
  draftState: string;
  refusal?: Refusal;
  problem?: string;
  keepProblem?: string;
  newer?: string;
  others: Draft[];
  lock: LockRequest | null;
  readOnly?: boolean;
}

/** Writes what saving says onto `screen`, and calls `redrawn` after each change, as the editor draws it again. */
export function shownOn(screen: Screen, redrawn: () => void = () => undefined): SavingShown {
  const set = <K extends keyof Screen>(key: K) => (value: Screen[K]) => {
    screen[key] = value;
    redrawn();
  };
  return {
    draftState: set('draftState'),
    refusal: set('refusal'),
    problem: set('problem'),
    keepProblem: set('keepProblem'),
    newer: set('newer'),
    others: set('others'),
    lock: set('lock'),
    readOnly: set('readOnly'),
  };
}

/** The fake API client (the fake operations never use it). */
export const api = {} as Api;

/** The story's form as it opens. */
export const formAt = (story: ContentItem, over: Partial<Form> = {}): Form => ({ ...formOf(story), ...over });

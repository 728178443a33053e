// How an open story's text reaches the service (src/story-saving.ts),
// without a browser: a change becomes a draft at the next autosave, a save
// refused by someone else's lock or an unreachable server keeps the text and
// is tried again when it can succeed, a save while another is under way
// waits for the next one, and "Save as new version" sends the form and the
// body, keeps what was typed meanwhile, and turns a clash into a merged draft.

import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, type ContentItem, type MergedDraft } from '../src/api';
import type { Form } from '../src/story-form';
import * as unsaved from '../src/unsaved';
import {
  AUTOSAVE_MS,
  DRAFT_LOCKED_OUT,
  KEEP_AFTER_MS,
  LOCK_POLL_MS,
  StorySaving,
  UNSAVED_CHANGES,
  draftRefusedWords,
  draftSavedWords,
  draftStep,
  mergeFailedWords,
  mergedInPlaceWords,
  mergedReopenWords,
  refusalOf,
  refusedSaveWords,
  savesAfterRead,
  versionChange,
  type KeptTexts,
  type SavingStart,
  type SavingView,
} from '../src/story-saving';
import { aStory, api, danasLock, fakeService, formAt, held, memoryStore, settle, shownOn, TestClock, typed, type Screen } from './story-saving-fakes';

const LOCKED = () => new ApiError(423, 'locked', 'Dana Desk has it locked.');
const DOWN = () => new ApiError(0, 'unreachable', 'The Copydesk service cannot be reached.');

/** One story open in the editor, with the fakes it saves through. */
function opened(options: { story?: ContentItem; start?: Partial<SavingStart>; view?: Partial<SavingView>; kept?: KeptTexts } = {}) {
  const story = options.story ?? aStory();
  const log: string[] = [];
  const clock = new TestClock();
  const store = memoryStore(log);
  const service = fakeService(story, log);
  const screen: Screen = { draftState: '', others: [], lock: story.lock_request ?? null };
  const reopen = vi.fn((why?: string) => void log.push(why ? `reopen: ${why}` : 'reopen'));
  const form = formAt(story);
  const view: SavingView = { api, me: 'ann', may: () => true, reopen, refusal: undefined, editable: true, form, ...options.view };
  // The editor draws itself again after each change: the next save reads the refusal on screen.
  const redrawn = () => {
    saving.view = { ...saving.view, refusal: screen.refusal };
  };
  const saving: StorySaving = new StorySaving(
    { item: story, serverHtml: story.content, form, me: 'ann', ...options.start },
    view,
    shownOn(screen, redrawn),
    { operations: service, kept: options.kept ?? store, clock },
  );
  // The editor's first draw hands over the form as it opened (no change).
  saving.formChanged(form);
  /** The form on screen changed. */
  const formTo = (over: Partial<Form>) => {
    const next = { ...saving.form, ...over };
    saving.view = { ...saving.view, form: next };
    saving.formChanged(next);
  };
  /** Moves the clock on and lets what it started finish. */
  const wait = async (ms: number) => {
    clock.advance(ms);
    await settle();
    await settle();
  };
  return { story, log, clock, store, service, screen, reopen, saving, formTo, wait };
}

/** The body a draft save sent, as plain text of its one paragraph. */
const rawText = (raw: unknown) => (JSON.parse(String(raw)) as { blocks: { text: string }[] }).blocks.map((b) => b.text).join('\n');

describe('the words and decisions', () => {
  it('sorts refusals by what the journalist can do about them', () => {
    expect(refusalOf(LOCKED()).kind).toBe('locked');
    expect(refusalOf(DOWN()).kind).toBe('unreachable');
    expect(refusalOf(new ApiError(503, 'unknown', 'Service Unavailable')).kind).toBe('unreachable');
    expect(refusalOf(new ApiError(503, 'offline', 'No newsroom server.')).kind).toBe('unreachable');
    expect(refusalOf(new ApiError(401, 'token_expired', 'expired')).kind).toBe('sign-in');
    expect(refusalOf(new ApiError(403, 'forbidden_action', 'DRAFT create')).kind).toBe('sign-in');
    expect(refusalOf(new ApiError(404, 'not_found', 'gone')).kind).toBe('other');
    expect(refusalOf(new Error('disk full'))).toEqual({ kind: 'other', words: 'Something went wrong: disk full' });
  });

  it('says who holds the lock, that the text is kept, and what happens next', () => {
    const story = aStory();
    const said = refusedSaveWords(refusalOf(LOCKED()), danasLock(story));
    expect(said).toMatch(/^Not saved: Dana Desk has this story locked since .*, so the server takes no changes from you\./);
    expect(said).toContain('What you typed stays here and is kept on this computer.');
    expect(said).toContain('It is saved as soon as they release the lock; ask them to, or wait.');
    expect(refusedSaveWords({ kind: 'locked', words: '' }, null)).toBe(
      'Not saved: someone else has this story locked. What you typed stays here and is kept on this computer. It is saved as soon as the lock is released.',
    );
    expect(refusedSaveWords(refusalOf(DOWN()))).toBe(
      'Not saved: the server cannot be reached. What you typed stays here and is kept on this computer. Keep writing: it is saved as soon as the server answers again.',
    );
    expect(draftRefusedWords(refusalOf(DOWN()))).toBe('Draft not saved: the server cannot be reached');
    expect(draftRefusedWords(refusalOf(LOCKED()))).toBe('Draft not saved: Someone else is working on this right now. Dana Desk has it locked.');
  });

  it('saves a draft only when something waits, nothing else is saving, and no one else holds the lock', () => {
    const at = { saving: false, merging: false, now: false, mayDraft: true, bodyWaits: true, formWaits: () => false, othersLock: false };
    expect(draftStep(at)).toBe('send');
    expect(draftStep({ ...at, saving: true })).toBe('wait');
    expect(draftStep({ ...at, merging: true })).toBe('wait');
    expect(draftStep({ ...at, merging: true, now: true })).toBe('send');
    expect(draftStep({ ...at, mayDraft: false })).toBe('wait');
    expect(draftStep({ ...at, bodyWaits: false })).toBe('wait');
    expect(draftStep({ ...at, bodyWaits: false, formWaits: () => true })).toBe('send');
    expect(draftStep({ ...at, bodyWaits: false, now: true })).toBe('send');
    expect(draftStep({ ...at, othersLock: true })).toBe('locked');
    // A save under way is never told it is locked out: it waits, and says nothing.
    expect(draftStep({ ...at, saving: true, othersLock: true })).toBe('wait');
  });

  it('saves after a read of the lock when someone else released it, or the last save was refused', () => {
    expect(savesAfterRead(true, false, false)).toBe(true);
    expect(savesAfterRead(true, true, false)).toBe(false);
    expect(savesAfterRead(false, false, false)).toBe(false);
    expect(savesAfterRead(false, true, true)).toBe(true);
  });

  it('sends URLs, the lead photo and the publication time only when they changed', () => {
    const story = aStory();
    const opened = formAt(story);
    const now = Date.UTC(2025, 5, 3, 18, 0, 0, 123);
    const body = { html: '<p>x</p>', raw: '{}' };
    const same = versionChange({ item: story, form: opened, opened, body, mayPublish: true, now });
    expect(same).toEqual({
      title: 'Night ferry',
      slug: 'night-ferry',
      abstract: 'The last crossing of the day.',
      authors: [],
      tags: [],
      base_version: 2,
      content: '<p>x</p>',
      content_raw: '{}',
    });
    const changed = versionChange({ item: story, form: { ...opened, urls: ' /ferry \n\n/night', lead: 'm1', published: true }, opened, body, mayPublish: true, now });
    expect(changed.urls).toEqual(['/ferry', '/night']);
    expect(changed.dominantAttachment).toBe('m1');
    expect(changed.published_at).toBe('2025-06-03T18:00:00Z');
    expect(versionChange({ item: story, form: { ...opened, published: true }, opened, body, mayPublish: false, now })).not.toHaveProperty('published_at');
    const live = aStory({ published_at: '2025-06-01T08:00:00Z' });
    expect(versionChange({ item: live, form: { ...formAt(live), published: false }, opened: formAt(live), body, mayPublish: true, now }).published_at).toBeNull();
  });
});

describe('autosave', () => {
  it('saves a changed body as a draft at the next autosave, keeping it here until the service has it', async () => {
    const t = opened();
    const stop = t.saving.start();
    await settle();
    t.saving.bodyChanged(typed('The ferry sails at nine.'));
    expect(t.screen.draftState).toBe(UNSAVED_CHANGES);
    expect(t.saving.waiting).toBe(true);
    await t.wait(KEEP_AFTER_MS);
    expect(t.store.texts.get(t.story.uuid)).toMatchObject({ html: '<p>The ferry sails at nine.</p>', bodyPending: true, version: '2' });
    expect(t.service.drafts.save).not.toHaveBeenCalled();

    await t.wait(AUTOSAVE_MS - KEEP_AFTER_MS);
    expect(t.service.drafts.save).toHaveBeenCalledTimes(1);
    const [, srn, sent] = t.service.drafts.save.mock.calls[0];
    expect(srn).toBe(t.story.srn);
    expect(sent).toMatchObject({ content: '<p>The ferry sails at nine.</p>', version: 2, fields: { title: 'Night ferry', slug: 'night-ferry' } });
    expect(rawText(sent.content_raw)).toBe('The ferry sails at nine.');
    expect(t.screen.draftState).toBe(draftSavedWords(t.clock.time));
    expect(t.screen.draftState).toMatch(/^Draft saved at \d/);
    expect(t.store.texts.size).toBe(0);
    expect(t.saving.waiting).toBe(false);
    expect(t.log.filter((c) => c !== 'drafts.others')).toEqual(['keep', 'keep', 'drafts.save', 'acknowledge all']);

    // Nothing changed since: the next autosave sends nothing.
    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).toHaveBeenCalledTimes(1);
    stop();
    expect(t.clock.pending).toBe(0);
  });

  it('saves a change of the form alone as a draft holding the form', async () => {
    const t = opened();
    t.saving.start();
    t.formTo({ title: 'Night ferry cancelled' });
    expect(t.screen.draftState).toBe(UNSAVED_CHANGES);
    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).toHaveBeenCalledTimes(1);
    const sent = t.service.drafts.save.mock.calls[0][2];
    expect(sent.fields?.title).toBe('Night ferry cancelled');
    expect(sent.content).toBe('<p>The ferry sails.</p>');
    // The draft holds the form now: it is not sent again.
    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).toHaveBeenCalledTimes(1);
  });

  it('sends text restored from this computer as soon as the story opens', async () => {
    const story = aStory();
    const kept = { uuid: story.uuid, version: '2', title: story.title, abstract: story.abstract, html: '<p>Kept here.</p>', raw: '{"blocks":[],"entityMap":{}}', bodyPending: true, fieldsPending: false, at: 1000 };
    const t = opened({ story, start: { kept, startHtml: kept.html, startRaw: kept.raw } });
    t.saving.start();
    await settle();
    await settle();
    expect(t.service.drafts.save).toHaveBeenCalledTimes(1);
    expect(t.service.drafts.save.mock.calls[0][2]).toMatchObject({ content: '<p>Kept here.</p>', content_raw: kept.raw });
    expect(t.screen.draftState).toMatch(/^Draft saved at/);
  });
});

describe("a save refused by someone else's lock", () => {
  it('keeps the text, names who holds the lock, and saves it once a read of the lock finds it released', async () => {
    const t = opened();
    const lock = danasLock(t.story);
    t.saving.start();
    await settle();
    t.service.drafts.save.mockRejectedValueOnce(LOCKED());
    t.service.content.get.mockResolvedValue({ ...t.story, lock_request: lock });
    t.saving.bodyChanged(typed('Two members abstained.'));

    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).toHaveBeenCalledTimes(1);
    expect(t.screen.refusal?.kind).toBe('locked');
    expect(t.screen.draftState).toBe('Draft not saved: Someone else is working on this right now. Dana Desk has it locked.');
    // The refusal reads the lock at once, so the banner names who holds it.
    expect(t.service.content.get).toHaveBeenCalledTimes(1);
    expect(t.screen.lock).toEqual(lock);
    expect(refusedSaveWords(t.screen.refusal!, t.screen.lock)).toMatch(/^Not saved: Dana Desk has this story locked since/);
    expect(t.store.texts.get(t.story.uuid)?.html).toBe('<p>Two members abstained.</p>');
    expect(t.saving.waiting).toBe(true);

    // While the lock is theirs, nothing is sent: it would be refused again.
    await t.wait(LOCK_POLL_MS - AUTOSAVE_MS); // the lock read at 5 s
    await t.wait(AUTOSAVE_MS * 3 - LOCK_POLL_MS); // the autosave at 9 s
    expect(t.service.drafts.save).toHaveBeenCalledTimes(1);
    expect(t.screen.draftState).toBe(DRAFT_LOCKED_OUT);
    expect(t.screen.refusal).toEqual({ kind: 'locked', words: '' });

    // Dana releases it: the next read of the lock (at 10 s, before the next autosave) saves the text.
    t.service.content.get.mockResolvedValue(t.story);
    await t.wait(LOCK_POLL_MS * 2 - AUTOSAVE_MS * 3);
    expect(t.screen.lock).toBeNull();
    expect(t.service.drafts.save).toHaveBeenCalledTimes(2);
    expect(t.service.drafts.save.mock.calls[1][2].content).toBe('<p>Two members abstained.</p>');
    expect(t.screen.refusal).toBeUndefined();
    expect(t.screen.draftState).toMatch(/^Draft saved at/);
    expect(t.store.texts.size).toBe(0);
  });

  it('keeps a version refused by the lock, says so, and reads the lock', async () => {
    const t = opened();
    t.service.content.update.mockRejectedValueOnce(LOCKED());
    t.saving.bodyChanged(typed('By six votes.'));
    await t.saving.saveVersion();
    await settle();
    expect(t.screen.refusal?.kind).toBe('locked');
    expect(t.screen.problem).toBeUndefined();
    expect(t.service.content.get).toHaveBeenCalledTimes(1);
    expect(t.reopen).not.toHaveBeenCalled();
    expect(t.store.texts.get(t.story.uuid)?.html).toBe('<p>By six votes.</p>');
  });

  it('opens read-only text as locked out: an autosave sends nothing while the lock is theirs', async () => {
    const story = aStory();
    const t = opened({ story: { ...story, lock_request: danasLock(story) } });
    t.saving.start();
    t.saving.bodyChanged(typed('Typed anyway.'));
    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).not.toHaveBeenCalled();
    expect(t.screen.draftState).toBe(DRAFT_LOCKED_OUT);
  });
});

describe('a server that cannot be reached', () => {
  it('keeps the text, says so, and saves it at the next autosave once the server answers', async () => {
    const t = opened();
    t.saving.start();
    t.service.drafts.save.mockRejectedValueOnce(DOWN());
    t.saving.bodyChanged(typed('The levee held at midnight.'));
    await t.wait(AUTOSAVE_MS);
    expect(t.screen.refusal?.kind).toBe('unreachable');
    expect(t.screen.draftState).toBe('Draft not saved: the server cannot be reached');
    expect(refusedSaveWords(t.screen.refusal!)).toContain('kept on this computer');
    expect(t.store.texts.get(t.story.uuid)?.html).toBe('<p>The levee held at midnight.</p>');

    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).toHaveBeenCalledTimes(2);
    expect(t.service.drafts.save.mock.calls[1][2].content).toBe('<p>The levee held at midnight.</p>');
    expect(t.screen.refusal).toBeUndefined();
    expect(t.screen.draftState).toMatch(/^Draft saved at/);
    expect(t.store.texts.size).toBe(0);
  });

  it('saves as soon as a read of the lock gets an answer again, before the next autosave', async () => {
    const t = opened();
    t.saving.start();
    t.service.drafts.save.mockRejectedValueOnce(DOWN());
    t.saving.bodyChanged(typed('Water rises.'));
    await t.wait(AUTOSAVE_MS);
    expect(t.screen.refusal?.kind).toBe('unreachable');
    await t.wait(LOCK_POLL_MS - AUTOSAVE_MS);
    expect(t.service.drafts.save).toHaveBeenCalledTimes(2);
    expect(t.screen.refusal).toBeUndefined();
  });

  it('says the server cannot be reached when a read of the lock fails with text waiting', async () => {
    const t = opened();
    t.saving.start();
    t.service.content.get.mockRejectedValue(DOWN());
    await t.wait(LOCK_POLL_MS - 1);
    t.saving.bodyChanged(typed('Still writing.'));
    t.service.drafts.save.mockRejectedValue(DOWN());
    await t.wait(1);
    expect(t.screen.refusal?.kind).toBe('unreachable');
    expect(t.screen.draftState).toBe(UNSAVED_CHANGES);
  });

  it('keeps the text in the browser (IndexedDB) until the draft is acknowledged', async () => {
    const t = opened({ kept: unsaved });
    t.saving.start();
    t.service.drafts.save.mockRejectedValueOnce(DOWN());
    t.saving.bodyChanged(typed('Kept in the browser.'));
    t.clock.advance(AUTOSAVE_MS);
    await vi.waitFor(() => expect(t.screen.draftState).toBe('Draft not saved: the server cannot be reached'));
    expect((await unsaved.readUnsaved(t.story.uuid))?.html).toBe('<p>Kept in the browser.</p>');
    t.clock.advance(AUTOSAVE_MS);
    await vi.waitFor(() => expect(t.screen.draftState).toMatch(/^Draft saved at/));
    expect(await unsaved.readUnsaved(t.story.uuid)).toBeUndefined();
  });
});

describe('a save while another is under way', () => {
  let t: ReturnType<typeof opened>;
  beforeEach(() => {
    t = opened();
    t.saving.start();
  });

  it('sends no second draft until the first is answered, then sends what was typed meanwhile', async () => {
    const answer = held<unknown>();
    t.service.drafts.save.mockReturnValueOnce(answer.promise);
    t.saving.bodyChanged(typed('First words.'));
    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).toHaveBeenCalledTimes(1);
    t.saving.bodyChanged(typed('First words. Then more.'));
    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).toHaveBeenCalledTimes(1);
    // "Save as new version" waits for the draft too: nothing is sent.
    await t.saving.saveVersion();
    expect(t.service.content.update).not.toHaveBeenCalled();

    answer.resolve(undefined);
    await settle();
    await settle();
    expect(t.screen.draftState).toMatch(/^Draft saved at/);
    // What was typed after the draft left is still waiting, and still kept here.
    expect(t.saving.waiting).toBe(true);
    expect(t.store.texts.get(t.story.uuid)?.html).toBe('<p>First words. Then more.</p>');
    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).toHaveBeenCalledTimes(2);
    expect(t.service.drafts.save.mock.calls[1][2].content).toBe('<p>First words. Then more.</p>');
    expect(t.store.texts.size).toBe(0);
  });

  it('keeps what was typed while a version was on its way, on the new version, for the reopened editor', async () => {
    const answer = held<ContentItem>();
    t.service.content.update.mockReturnValueOnce(answer.promise);
    t.saving.bodyChanged(typed('The ferry sails. At nine.'));
    const saved = t.saving.saveVersion();
    await settle();
    t.saving.bodyChanged(typed('The ferry sails. At nine. Late again.'));
    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).not.toHaveBeenCalled();
    answer.resolve({ ...t.story, version: '3' });
    await saved;
    expect(t.service.content.update.mock.calls[0][2].content).toBe('<p>The ferry sails. At nine.</p>');
    expect(t.store.texts.get(t.story.uuid)).toMatchObject({ html: '<p>The ferry sails. At nine. Late again.</p>', version: '3', bodyPending: true });
    expect(t.reopen).toHaveBeenCalledWith();
  });
});

describe('saving a version', () => {
  it('sends the form and the body on the version it started from, then forgets the kept text and reopens', async () => {
    const t = opened();
    t.saving.bodyChanged(typed('The ferry sails hourly.'));
    t.formTo({ title: 'Ferries every hour', urls: '/ferries' });
    await t.saving.saveVersion();
    expect(t.service.content.update).toHaveBeenCalledTimes(1);
    const [, uuid, change] = t.service.content.update.mock.calls[0];
    expect(uuid).toBe(t.story.uuid);
    expect(change).toMatchObject({ title: 'Ferries every hour', base_version: 2, content: '<p>The ferry sails hourly.</p>', urls: ['/ferries'] });
    expect(rawText(change.content_raw)).toBe('The ferry sails hourly.');
    expect(t.log).toEqual(['keep', 'content.update', 'acknowledge all', 'reopen']);
    expect(t.store.texts.size).toBe(0);
    expect(t.saving.waiting).toBe(false);
  });

  it('sends the text it opened with when the body was not touched', async () => {
    const t = opened({ start: { startHtml: '<p>From the draft.</p>', startRaw: '{"blocks":[],"entityMap":{}}' } });
    await t.saving.saveVersion();
    expect(t.service.content.update.mock.calls[0][2]).toMatchObject({ content: '<p>From the draft.</p>', content_raw: '{"blocks":[],"entityMap":{}}' });
    expect(t.log).toEqual(['discard', 'content.update', 'acknowledge all', 'reopen']);
  });

  it('sends nothing while the story may not be changed', async () => {
    const t = opened({ view: { editable: false } });
    await t.saving.saveVersion();
    expect(t.service.content.update).not.toHaveBeenCalled();
  });

  it('shows a refusal it cannot sort as a problem, and does not reopen', async () => {
    const t = opened();
    t.service.content.update.mockRejectedValueOnce(new ApiError(400, 'invalid_request', 'too long', 'title'));
    await t.saving.saveVersion();
    expect(t.screen.problem).toBe('Please check “title”: too long');
    expect(t.screen.refusal).toBeUndefined();
    expect(t.reopen).not.toHaveBeenCalled();
  });

  it('turns a clash with a newer version into a draft, and reopens merged onto it', async () => {
    const t = opened();
    t.service.content.update.mockRejectedValueOnce(new ApiError(409, 'conflict', 'Version 3 was saved since'));
    t.saving.bodyChanged(typed('My wording.'));
    await t.saving.saveVersion();
    expect(t.service.drafts.save).toHaveBeenCalledTimes(1);
    expect(t.service.drafts.save.mock.calls[0][2].content).toBe('<p>My wording.</p>');
    expect(t.reopen).toHaveBeenCalledWith(mergedReopenWords('2'));
    expect(mergedReopenWords('2')).toMatch(/^Not saved yet: someone saved a newer version while you were editing version 2/);
    // Until it reopens, nothing else saves, not even words typed since.
    t.saving.start();
    t.saving.bodyChanged(typed('My wording, and more.'));
    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).toHaveBeenCalledTimes(1);
  });

  it('says so when not even the draft of a clashing version is taken, and saves again later', async () => {
    const t = opened();
    t.saving.start();
    const clash = new ApiError(409, 'conflict', 'Version 3 was saved since');
    t.service.content.update.mockRejectedValueOnce(clash);
    t.service.drafts.save.mockRejectedValueOnce(DOWN());
    t.saving.bodyChanged(typed('My wording.'));
    await t.saving.saveVersion();
    expect(t.screen.problem).toBe(mergeFailedWords(clash));
    expect(t.screen.problem).toBe('Not saved: Version 3 was saved since. Your text stays here; compare it with the newer version (Versions, below) before you save.');
    expect(t.reopen).not.toHaveBeenCalled();
    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).toHaveBeenCalledTimes(2);
  });
});

describe('reading the lock', () => {
  it('opens a newer version afresh when nothing here waits, and warns of it when something does', async () => {
    const calm = opened();
    calm.service.content.get.mockResolvedValue({ ...calm.story, version: '3' });
    await calm.saving.readLock();
    expect(calm.reopen).toHaveBeenCalledWith();
    expect(calm.screen.newer).toBeUndefined();

    // Unsaved words here: they become this writer's draft of version 2, and
    // the editor reopens on version 3 with the draft merged onto it.
    const busy = opened();
    busy.service.content.get.mockResolvedValue({ ...busy.story, version: '3' });
    busy.saving.bodyChanged(typed('Mine.'));
    await busy.saving.readLock();
    expect(busy.service.drafts.save).toHaveBeenCalledTimes(1);
    expect(busy.service.drafts.save.mock.calls[0][2]).toMatchObject({ content: '<p>Mine.</p>', version: 2 });
    expect(busy.reopen).toHaveBeenCalledWith(mergedInPlaceWords('2', '3'));
    expect(mergedInPlaceWords('2', '3')).toMatch(/^Someone saved version 3 while you were editing version 2: their change is in the text now/);
    expect(busy.screen.newer).toBeUndefined();
  });

  it('warns of a newer version, and merges later, when the unsaved words cannot become a draft now', async () => {
    // The draft is refused (the server went away between the two reads): nothing reopens, the words stay.
    const down = opened();
    down.service.content.get.mockResolvedValue({ ...down.story, version: '3' });
    down.service.drafts.save.mockRejectedValueOnce(DOWN());
    down.saving.bodyChanged(typed('Mine.'));
    await down.saving.readLock();
    expect(down.reopen).not.toHaveBeenCalled();
    expect(down.screen.newer).toBe('3');
    // A read within seconds does not try again (each draft is a change every window hears)...
    await down.saving.readLock();
    expect(down.service.drafts.save).toHaveBeenCalledTimes(1);
    // ...the next poll finds the server again and merges.
    await down.wait(LOCK_POLL_MS);
    await down.saving.readLock();
    expect(down.reopen).toHaveBeenCalledWith(mergedInPlaceWords('2', '3'));

    // Words typed while the draft was on its way are not in it: no reopen yet.
    const typing = opened();
    typing.service.content.get.mockResolvedValue({ ...typing.story, version: '3' });
    const slow = held<undefined>();
    typing.service.drafts.save.mockReturnValueOnce(slow.promise);
    typing.saving.bodyChanged(typed('Mine.'));
    const read = typing.saving.readLock();
    await settle();
    typing.saving.bodyChanged(typed('Mine, and more.'));
    slow.resolve(undefined);
    await read;
    expect(typing.reopen).not.toHaveBeenCalled();
    expect(typing.screen.newer).toBe('3');
    await typing.wait(LOCK_POLL_MS);
    await typing.saving.readLock();
    expect(typing.service.drafts.save.mock.calls[1][2].content).toBe('<p>Mine, and more.</p>');
    expect(typing.reopen).toHaveBeenCalledWith(mergedInPlaceWords('2', '3'));

    // A writer who may not save drafts keeps the warning; the merge comes with the save.
    const noDrafts = opened({ view: { may: (action) => action !== 'DRAFT create' } });
    noDrafts.service.content.get.mockResolvedValue({ ...noDrafts.story, version: '3' });
    noDrafts.saving.bodyChanged(typed('Mine.'));
    await noDrafts.saving.readLock();
    expect(noDrafts.service.drafts.save).not.toHaveBeenCalled();
    expect(noDrafts.reopen).not.toHaveBeenCalled();
    expect(noDrafts.screen.newer).toBe('3');
  });

  it('leaves a merge where both changed the same words for the writer to choose at Save', async () => {
    const t = opened();
    t.service.content.get.mockResolvedValue({ ...t.story, version: '3' });
    t.service.drafts.merged.mockResolvedValue({ conflicts: [{ block: 0 }], field_conflicts: [] } as unknown as MergedDraft);
    t.saving.bodyChanged(typed('Mine.'));
    await t.saving.readLock();
    // The words are on the server as a draft; the editor keeps them and warns.
    expect(t.service.drafts.save).toHaveBeenCalledTimes(1);
    expect(t.reopen).not.toHaveBeenCalled();
    expect(t.screen.newer).toBe('3');
    // Not tried again for the same version.
    await t.wait(LOCK_POLL_MS);
    await t.saving.readLock();
    expect(t.service.drafts.merged).toHaveBeenCalledTimes(1);
    expect(t.reopen).not.toHaveBeenCalled();
  });

  it('once reopened, reads and saves nothing more: a read still in flight leaves the new editor alone', async () => {
    const t = opened();
    t.service.content.get.mockResolvedValue({ ...t.story, version: '3' });
    t.saving.bodyChanged(typed('Mine.'));
    const late = held<ContentItem>();
    t.service.content.get.mockReturnValueOnce(late.promise);
    const inFlight = t.saving.readLock();
    await t.saving.readLock();
    expect(t.reopen).toHaveBeenCalledTimes(1);
    const drafts = t.service.drafts.save.mock.calls.length;
    // The new editor keeps its own text here.
    t.store.texts.set(t.story.uuid, { ...t.store.texts.get(t.story.uuid)!, html: '<p>New editor.</p>', version: '3', bodyPending: true });
    late.resolve({ ...t.story, version: '4' });
    await inFlight;
    await t.wait(LOCK_POLL_MS);
    await t.saving.readLock();
    expect(t.service.drafts.save).toHaveBeenCalledTimes(drafts);
    expect(t.reopen).toHaveBeenCalledTimes(1);
    expect(t.store.texts.get(t.story.uuid)?.html).toBe('<p>New editor.</p>');
  });

  it('saves a version asked for while a newer one merges in only after the merge, and not once it reopened', async () => {
    const t = opened();
    t.service.content.get.mockResolvedValue({ ...t.story, version: '3' });
    t.saving.bodyChanged(typed('Mine.'));
    const merging = held<MergedDraft>();
    t.service.drafts.merged.mockReturnValueOnce(merging.promise);
    const read = t.saving.readLock();
    await settle();
    const save = t.saving.saveVersion();
    await settle();
    expect(t.service.content.update).not.toHaveBeenCalled();
    merging.resolve({ conflicts: [], field_conflicts: [] } as unknown as MergedDraft);
    await read;
    await save;
    // The merge reopened the editor on version 3: the save is the new editor's to make.
    expect(t.reopen).toHaveBeenCalledWith(mergedInPlaceWords('2', '3'));
    expect(t.service.content.update).not.toHaveBeenCalled();
  });

  it("does not take its own new version for someone else's while it reopens", async () => {
    const t = opened();
    t.saving.bodyChanged(typed('Mine.'));
    const kept = held<void>();
    const acknowledge = t.store.acknowledge;
    t.store.acknowledge = async (...args) => {
      await kept.promise;
      return acknowledge(...args);
    };
    t.service.content.get.mockResolvedValue({ ...t.story, version: '3' });
    const saved = t.saving.saveVersion();
    await settle();
    // A read answers after the version was taken, before the editor reopens.
    await t.saving.readLock();
    expect(t.service.drafts.save).not.toHaveBeenCalled();
    expect(t.screen.newer).toBeUndefined();
    kept.resolve();
    await saved;
    expect(t.reopen).toHaveBeenCalledTimes(1);
    expect(t.reopen).toHaveBeenCalledWith();
  });

  it("reads others' unsaved drafts when it reads the lock, unless the writer may not list them", async () => {
    const t = opened();
    await t.saving.readLock();
    expect(t.service.drafts.others).toHaveBeenCalledTimes(1);
    const blind = opened({ view: { may: (action) => action !== 'DRAFT list' } });
    await blind.saving.readLock();
    expect(blind.service.drafts.others).not.toHaveBeenCalled();
  });
});

// @vitest-environment jsdom
// The editor's saving as a Preact hook (useStorySaving in src/story-saving.ts),
// drawn with Preact's own `render` into a jsdom page: the first draw is no
// change, typing in the form or the body becomes a draft on the clock it is
// given, a story opened under someone else's lock is read-only until a read
// finds it released, Ctrl+S saves a version, and closing the story stops its
// timers and writes what is due to this computer.

import { h, render } from 'preact';
import { useState } from 'preact/hooks';
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, type ContentItem } from '../src/api';
import { formOf } from '../src/story-form';
import { AUTOSAVE_MS, KEEP_AFTER_MS, LOCK_POLL_MS, refusedSaveWords, useStorySaving, type StorySavingState } from '../src/story-saving';
import { aStory, api, danasLock, fakeService, memoryStore, settle, TestClock, typed } from './story-saving-fakes';

let root: HTMLElement;
let shown: { saving: StorySavingState; setTitle: (title: string) => void };

/** The story open in a stand-in for the editor, with the fakes it saves through. */
async function drawn(story: ContentItem = aStory()) {
  const log: string[] = [];
  const clock = new TestClock();
  const store = memoryStore(log);
  const service = fakeService(story, log);
  const reopen = vi.fn();
  function Editor() {
    // The form's fields are the editor's state: a list keeps its identity until it changes.
    const [opened] = useState(() => formOf(story));
    const [title, setTitle] = useState(story.title);
    const saving = useStorySaving(
      {
        item: story,
        api,
        me: 'ann',
        may: () => true,
        reopen,
        offered: false,
        serverHtml: story.content,
        said: 'Restored your draft from 3 June.',
        form: { ...opened, title },
      },
      { operations: service, kept: store, clock },
    );
    shown = { saving, setTitle };
    return h(
      'div',
      null,
      h('p', { class: 'draft-state' }, saving.draftState),
      saving.refusal && h('p', { class: 'refused-save' }, refusedSaveWords(saving.refusal, saving.lock)),
    );
  }
  await act(() => {
    render(h(Editor, null), root);
  });
  /** Moves the clock on, lets what it started finish, and draws the editor again. */
  const wait = (ms: number) =>
    act(async () => {
      clock.advance(ms);
      await settle();
      await settle();
    });
  const text = (selector: string) => root.querySelector(selector)?.textContent ?? '';
  return { story, log, clock, store, service, reopen, wait, text };
}

beforeEach(() => {
  root = document.createElement('div');
  document.body.append(root);
});

afterEach(async () => {
  await act(() => render(null, root));
  root.remove();
});

describe('the saving hook', () => {
  it('takes the first draw as no change, and saves a changed headline as a draft on its clock', async () => {
    const t = await drawn();
    expect(t.text('.draft-state')).toBe('Restored your draft from 3 June.');
    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).not.toHaveBeenCalled();

    await act(() => shown.setTitle('Night ferry cancelled'));
    expect(t.text('.draft-state')).toBe('Unsaved changes…');
    await t.wait(AUTOSAVE_MS);
    expect(t.service.drafts.save).toHaveBeenCalledTimes(1);
    expect(t.service.drafts.save.mock.calls[0][2].fields?.title).toBe('Night ferry cancelled');
    expect(t.text('.draft-state')).toMatch(/^Draft saved at \d/);
  });

  it('shows a refused draft in words and clears them once a later one is saved', async () => {
    const t = await drawn();
    t.service.drafts.save.mockRejectedValueOnce(new ApiError(0, 'unreachable', 'down'));
    await act(() => shown.saving.bodyChanged(typed('The levee held.')));
    await t.wait(AUTOSAVE_MS);
    expect(t.text('.refused-save')).toMatch(/^Not saved: the server cannot be reached\. What you typed stays here and is kept on this computer\./);
    expect(t.store.texts.get(t.story.uuid)?.html).toBe('<p>The levee held.</p>');
    await t.wait(AUTOSAVE_MS);
    expect(root.querySelector('.refused-save')).toBeNull();
    expect(t.text('.draft-state')).toMatch(/^Draft saved at/);
  });

  it("opens a story under someone else's lock read-only, and editable once a read finds it released", async () => {
    const story = aStory();
    const t = await drawn({ ...story, lock_request: danasLock(story) });
    expect(shown.saving.readOnly).toBe(true);
    expect(shown.saving.editable).toBe(false);
    expect(shown.saving.lock?.user?.name).toBe('Dana Desk');
    // Still hers at the first read.
    await t.wait(LOCK_POLL_MS);
    expect(shown.saving.readOnly).toBe(true);
    t.service.content.get.mockResolvedValue(story);
    await t.wait(LOCK_POLL_MS);
    expect(t.service.content.get).toHaveBeenCalledTimes(2);
    expect(shown.saving.readOnly).toBe(false);
    expect(shown.saving.editable).toBe(true);
    expect(shown.saving.lock).toBeNull();
  });

  it('saves a version on Ctrl+S, with the headline on screen', async () => {
    const t = await drawn();
    await act(() => shown.setTitle('Ferries every hour'));
    await act(async () => {
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 's', ctrlKey: true, cancelable: true }));
      await settle();
      await settle();
    });
    expect(t.service.content.update).toHaveBeenCalledTimes(1);
    expect(t.service.content.update.mock.calls[0][2]).toMatchObject({ title: 'Ferries every hour', base_version: 2 });
    expect(t.reopen).toHaveBeenCalledWith();
  });

  it('writes what is due to this computer when the page goes away, and stops its timers when closed', async () => {
    const t = await drawn();
    await act(() => shown.saving.bodyChanged(typed('Typed just now.')));
    expect(t.store.texts.size).toBe(0);
    await act(async () => {
      window.dispatchEvent(new Event('pagehide'));
      await settle();
    });
    expect(t.store.texts.get(t.story.uuid)?.html).toBe('<p>Typed just now.</p>');
    expect(t.clock.pending).toBe(2);
    await act(() => render(null, root));
    expect(t.clock.pending).toBe(0);
    await t.wait(KEEP_AFTER_MS + AUTOSAVE_MS + LOCK_POLL_MS);
    expect(t.service.drafts.save).not.toHaveBeenCalled();
  });
});

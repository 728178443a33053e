// The editor's unsaved text in IndexedDB (in-memory IndexedDB here, as jsdom
// and Node have none): kept, read back, cleared only by an acknowledgement
// of what was kept, never of something older.

import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { acknowledge, discardUnsaved, keepUnsaved, readUnsaved, type UnsavedText } from '../src/unsaved';

const text = (over: Partial<UnsavedText> = {}): UnsavedText => ({
  uuid: 'a1b2',
  version: '2',
  title: 'Flood warning',
  abstract: '',
  html: '<p>Water rises</p>',
  raw: '{"blocks":[],"entityMap":{}}',
  bodyPending: true,
  fieldsPending: false,
  at: 1000,
  ...over,
});

describe('unsaved text', () => {
  it('is kept per story and read back', async () => {
    await keepUnsaved(text());
    await keepUnsaved(text({ uuid: 'other', html: '<p>Other story</p>' }));
    expect((await readUnsaved('a1b2'))?.html).toBe('<p>Water rises</p>');
    expect((await readUnsaved('other'))?.html).toBe('<p>Other story</p>');
    expect(await readUnsaved('nothing')).toBeUndefined();
    await discardUnsaved('other');
    expect(await readUnsaved('other')).toBeUndefined();
  });

  it('is cleared when a save of it is acknowledged', async () => {
    await keepUnsaved(text({ at: 2000 }));
    await acknowledge('a1b2', 2000, 'body');
    expect(await readUnsaved('a1b2')).toBeUndefined();
  });

  it('stays when newer text was typed after the save began', async () => {
    await keepUnsaved(text({ at: 3000, html: '<p>Water rises fast</p>' }));
    await acknowledge('a1b2', 2500, 'all');
    expect((await readUnsaved('a1b2'))?.html).toBe('<p>Water rises fast</p>');
    await discardUnsaved('a1b2');
  });

  it('keeps a changed headline after a draft holds the body, until a version holds it', async () => {
    await keepUnsaved(text({ at: 4000, fieldsPending: true, title: 'Flood warning for the north bank' }));
    await acknowledge('a1b2', 4000, 'body');
    const kept = await readUnsaved('a1b2');
    expect(kept?.title).toBe('Flood warning for the north bank');
    expect(kept?.bodyPending).toBe(false);
    await acknowledge('a1b2', 4000, 'all');
    expect(await readUnsaved('a1b2')).toBeUndefined();
  });
});

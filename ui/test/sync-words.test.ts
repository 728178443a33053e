// The sync state in words: a round that failed never reads as online with
// nothing waiting, and what the key may not read is named with the action.

import { describe, expect, it } from 'vitest';
import type { SyncStatus } from '../src/api';
import { lastRoundFailed, notSyncedLines, syncBadge } from '../src/sync-words';
import { serviceTime } from '../src/time';

const good: SyncStatus = {
  remote: 'https://desk.example',
  online: true,
  last_sync_at: '2026-11-27 14:02:00',
  last_error: null,
  last_error_at: null,
  not_readable: [],
  pending: '0',
  conflicts: '0',
  needs_attention: '0',
};

const printDocuments = { record_type: 'print_document', label: 'print documents', action: 'PRINTDOCUMENT create', count: '3' };

describe('sync words', () => {
  it('says online with what waits when the last round succeeded', () => {
    expect(syncBadge(good)).toEqual({ kind: 'online', text: 'Online · 0 waiting', title: undefined });
    // Listening to the central server's change stream.
    expect(syncBadge({ ...good, live: true }).text).toBe('Online · live · 0 waiting');
    // A live stream does not hide a failed round.
    expect(syncBadge({ ...good, live: true, last_error: 'refused', last_error_at: '2025-06-03 18:00:00' }).text).toMatch(/^Sync failed/);
    expect(lastRoundFailed(good)).toBeUndefined();
  });

  it('never shows a failed round as online with nothing waiting', () => {
    const failed = {
      ...good,
      pending: '1',
      last_error: 'the central server answered 500 internal: the database is busy',
      last_error_at: '2026-11-27 14:10:00',
    };
    const badge = syncBadge(failed);
    expect(badge.kind).toBe('failed');
    expect(badge.text).toBe('Sync failed · 1 waiting');
    expect(badge.text).not.toMatch(/Online/);
    const line = `Last sync failed: the central server answered 500 internal: the database is busy · last good sync ${serviceTime('2026-11-27 14:02:00')}`;
    expect(lastRoundFailed(failed)).toBe(line);
    expect(badge.title).toBe(line);
    expect(lastRoundFailed({ ...failed, last_sync_at: null })).toMatch(/· no good sync yet$/);
  });

  it('says offline, not failed, when the round did not reach the server', () => {
    const away = { ...good, online: false, offline_reason: 'connection refused', last_error: 'the central server cannot be reached: connection refused' };
    expect(syncBadge(away)).toEqual({ kind: 'offline', text: 'Offline · 0 waiting', title: 'connection refused' });
    expect(lastRoundFailed(away)).toBeUndefined();
    expect(syncBadge({ ...away, certificate_untrusted: true }).text).toBe('Server not trusted · 0 waiting');
  });

  it('names what the key may not read, with the action it lacks', () => {
    const skipping = { ...good, not_readable: [printDocuments] };
    expect(syncBadge(skipping).text).toBe('Online · 0 waiting · print documents not synced');
    expect(notSyncedLines(skipping)).toEqual(['print documents (3): your key lacks PRINTDOCUMENT create']);
    const more = {
      ...good,
      conflicts: '2',
      not_readable: [printDocuments, { record_type: 'tag', label: 'tags', action: 'TAG list', count: null }],
    };
    expect(syncBadge(more).text).toBe('Online · 0 waiting · 2 conflicts · 2 kinds of record not synced');
    expect(notSyncedLines(more)[1]).toBe('tags: your key lacks TAG list');
    expect(notSyncedLines(good)).toEqual([]);
  });

  it('says a copy with no server is not syncing', () => {
    expect(syncBadge({ ...good, remote: null }).text).toBe('Not syncing');
  });
});

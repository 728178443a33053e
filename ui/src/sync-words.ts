// The sync state in words: the badge in the top bar, a last round that
// failed, and what the key may not read. Kept apart from the screen so that
// the words are checked without a DOM: a round that failed must never read
// "Online · 0 waiting".

import type { SyncStatus } from './api';
import { serviceTime } from './time';

/** `1 conflict`, `2 conflicts`. */
export function counted(count: number | string, one: string, many = `${one}s`): string {
  const n = Number(count);
  return `${n} ${n === 1 ? one : many}`;
}

/** How the badge looks: its colour follows the kind. */
export type BadgeKind = 'local' | 'online' | 'offline' | 'untrusted' | 'failed';

export interface Badge {
  kind: BadgeKind;
  text: string;
  /** The reason behind it, for its tooltip. */
  title?: string;
}

/** Whether the last round reached the server and still failed (a refusal, a page this copy could not keep). */
function failedOnline(status: SyncStatus): boolean {
  return status.online && Boolean(status.last_error);
}

/** What is not synced, in a few words for the badge: `print documents not synced`. */
function notSyncedShort(status: SyncStatus): string | undefined {
  const kinds = status.not_readable ?? [];
  if (kinds.length === 0) return undefined;
  const labels = [...new Set(kinds.map((k) => k.label))];
  return labels.length === 1 ? `${labels[0]} not synced` : `${labels.length} kinds of record not synced`;
}

/** The badge: online or not, whether the last round failed, what waits, and what is not synced. */
export function syncBadge(status: SyncStatus): Badge {
  if (!status.remote) return { kind: 'local', text: 'Not syncing', title: 'This copy syncs with no server' };
  const kind: BadgeKind = !status.online
    ? status.certificate_untrusted
      ? 'untrusted'
      : 'offline'
    : failedOnline(status)
      ? 'failed'
      : 'online';
  const head = status.syncing
    ? 'Syncing…'
    : { untrusted: 'Server not trusted', offline: 'Offline', failed: 'Sync failed', online: status.live ? 'Online · live' : 'Online', local: 'Not syncing' }[kind];
  const parts = [
    head,
    `${status.pending} waiting`,
    Number(status.conflicts) > 0 ? counted(status.conflicts, 'conflict') : undefined,
    notSyncedShort(status),
  ].filter((part): part is string => Boolean(part));
  const title = !status.online ? status.offline_reason ?? undefined : lastRoundFailed(status);
  return { kind, text: parts.join(' · '), title };
}

/**
 * A last round that reached the server and failed all the same, with the
 * last good sync: `Last sync failed: … · last good sync 14:02`. Undefined
 * when it succeeded, or did not reach the server (the screen says offline).
 */
export function lastRoundFailed(status: SyncStatus): string | undefined {
  if (!failedOnline(status)) return undefined;
  const good = status.last_sync_at ? `last good sync ${serviceTime(status.last_sync_at)}` : 'no good sync yet';
  return `Last sync failed: ${status.last_error} · ${good}`;
}

/** What the key may not read, one line a type: `print documents (3): your key lacks PRINTDOCUMENT create`. */
export function notSyncedLines(status: SyncStatus): string[] {
  return (status.not_readable ?? []).map((k) => `${k.label}${k.count != null ? ` (${k.count})` : ''}: your key lacks ${k.action}`);
}

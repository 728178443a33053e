// Sync at a glance (the badge in the top bar) and in full: online or not,
// the last good sync and a last round that failed, pending changes,
// progress, what is not synced because the key may not read it, what needs
// attention, and the conflicts side by side with a resolution.

import { diffWords } from 'diff';
import { useEffect, useState } from 'preact/hooks';
import type { RecordLabel, SyncConflict, SyncStatus } from '../api';
import { useDesk } from '../context';
import { textOf } from '../text';
import { attempt, Problem, useLoad } from '../load';
import { MissingPermission } from '../permission';
import { counted, lastRoundFailed, notSyncedLines, syncBadge } from '../sync-words';
import { When } from '../when';
import * as ops from '../operations';

/** Settling a conflict with a text of one's own, starting from one's own version. */
function EditedText({ conflict, onKeep }: { conflict: SyncConflict; onKeep: (text: string) => void }) {
  const [text, setText] = useState<string>();
  if (text === undefined) {
    return (
      <button type="button" onClick={() => setText(conflict.block ? textOf(conflict.mine) : conflict.mine)}>
        Edit…
      </button>
    );
  }
  return (
    <div class="edited-text">
      <label>
        Your text for {conflict.block ? 'this paragraph' : `“${conflict.field}”`}
        <textarea rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </label>
      <button type="button" onClick={() => onKeep(text)}>
        Keep this text
      </button>
    </div>
  );
}

/** One side of a paragraph conflict, its words that differ from the other side marked. */
function MarkedWords({ text, other, mark }: { text: string; other: string; mark: 'ins' | 'del' }) {
  const Tag = mark;
  return (
    <p class="conflict-text">
      {diffWords(other, text).map((part, i) =>
        part.added ? <Tag key={i}>{part.value}</Tag> : part.removed ? null : <span key={i}>{part.value}</span>,
      )}
    </p>
  );
}

/** What a kind of record is called in a sentence. */
function kindName(recordType: string): string {
  return (
    {
      content: 'story',
      note_comment: 'note on',
      assignment_comment: 'comment on the assignment',
      draft: 'draft of',
      attachment: 'attachment of',
      print_document: 'print document',
    }[recordType] ?? recordType.replace(/_/g, ' ')
  );
}

/** A synced record by what a person calls it, linked to its story when it has one. */
function RecordName({ record, srn }: { record: RecordLabel; srn: string }) {
  const name = record.headline ? `“${record.headline}”` : srn;
  return (
    <>
      {kindName(record.record_type)}{' '}
      {record.story_uuid ? <a href={`#/content/${encodeURIComponent(record.story_uuid)}`}>{name}</a> : name}
    </>
  );
}

/** Polls the sync state every few seconds. */
function useStatus(): SyncStatus | undefined {
  const { api, may } = useDesk();
  const [status, setStatus] = useState<SyncStatus>();
  useEffect(() => {
    if (!may('SYNC get')) return;
    let stopped = false;
    const read = () =>
      ops.sync.status(api).then(
        (s) => !stopped && setStatus(s),
        () => !stopped && setStatus(undefined),
      );
    void read();
    const timer = setInterval(read, 4000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [api]);
  return status;
}

export function SyncBadge() {
  const status = useStatus();
  if (!status) return null;
  const badge = syncBadge(status);
  return (
    <a href="#/sync" class={`badge ${badge.kind}`} title={badge.title}>
      {badge.text}
    </a>
  );
}

export function SyncScreen() {
  const { api, may } = useDesk();
  const status = useStatus();
  const conflicts = useLoad(() => ops.sync.conflicts(api), []);
  const attention = useLoad(() => ops.sync.attention(api), []);
  const waiting = useLoad(() => ops.sync.waiting(api), [status?.pending]);
  const failed = status && lastRoundFailed(status);
  const notSynced = status ? notSyncedLines(status) : [];
  const [problem, setProblem] = useState<string>();
  const resolve = async (uuid: string, keep: 'mine' | 'theirs' | 'edited', text?: string) => {
    setProblem(await attempt(() => ops.sync.resolve(api, uuid, { keep, text })));
    conflicts.reload();
  };
  return (
    <section aria-labelledby="sync-heading">
      <h1 id="sync-heading">Sync</h1>
      {failed && (
        <p class="sync-failed" role="status">
          {failed}
        </p>
      )}
      {status ? (
        <dl class="facts">
          <dt>Newsroom server</dt>
          <dd>{status.remote ?? 'none: this copy is its own source of truth (set a server in Settings to sync)'}</dd>
          <dt>Connection</dt>
          <dd>
            {!status.remote
              ? 'Not syncing: there is no newsroom server to reach.'
              : status.online
                ? failed
                  ? 'Online, but the last sync failed: your work stays here, and the next sync tries again.'
                  : status.live
                    ? 'Live: the newsroom server answered the last sync, and its changes arrive here as they are made.'
                    : 'Online: the newsroom server answered the last sync.'
                : status.certificate_untrusted
                  ? 'Not connected: this computer does not trust the newsroom server’s certificate, so nothing was sent. Your work is kept here. Tell whoever runs the server; on a network that intercepts secure connections (some hotels and cafés do), syncing waits until you are on another. If the reason below says the certificate expired or is not valid yet, check this computer’s date and time first.'
                  : 'Offline: your work is kept here and goes up when the server answers again.'}
          </dd>
          {!status.online && status.offline_reason && (
            <>
              <dt>Why</dt>
              <dd class="offline-reason">{status.offline_reason}</dd>
            </>
          )}
          <dt>Last good sync</dt>
          <dd>{status.last_sync_at ? <When stamp={status.last_sync_at} withSeconds /> : 'never'}</dd>
          {status.last_error && status.last_error_at && (
            <>
              <dt>Last failed sync</dt>
              <dd>
                <When stamp={status.last_error_at} withSeconds />
              </dd>
            </>
          )}
          <dt>Changes waiting to go</dt>
          <dd>{counted(status.pending, 'change')}</dd>
          {status.syncing && (
            <>
              <dt>Syncing now</dt>
              <dd>
                <span role="status">
                  {status.progress_pulled} brought in, {status.progress_pushed} sent so far
                </span>
              </dd>
            </>
          )}
        </dl>
      ) : (
        <p>No sync state to show.</p>
      )}
      <Problem message={problem ?? conflicts.error ?? attention.error ?? waiting.error} />
      <h2>Conflicts</h2>
      {(conflicts.data?.items ?? []).length === 0 && <p>No conflicts.</p>}
      {(conflicts.data?.items ?? []).map((c) => (
        <article class="conflict" aria-label={`Conflict on ${c.field}`} key={c.uuid}>
          <h3>
            {c.field === '*'
              ? 'The whole record'
              : c.block
                ? `Paragraph ${Number(c.block.position) + 1} of the field “${c.field}”`
                : `The field “${c.field}”`}{' '}
            of the <RecordName record={c.record} srn={c.srn} />
          </h3>
          {c.block ? (
            <>
              <p class="hint">
                Everything else in this text merged. Only this paragraph was changed in the same words on both sides.
              </p>
              {c.block.before != null && <p class="context" aria-label="The paragraph before">{c.block.before}</p>}
              <div class="side-by-side">
                <section aria-label="Yours">
                  <h4>Yours (kept in the history)</h4>
                  <MarkedWords text={textOf(c.mine)} other={textOf(c.theirs)} mark="ins" />
                </section>
                <section aria-label="Theirs">
                  <h4>On the server (on the page now)</h4>
                  <MarkedWords text={textOf(c.theirs)} other={textOf(c.mine)} mark="ins" />
                </section>
              </div>
              {c.block.after != null && <p class="context" aria-label="The paragraph after">{c.block.after}</p>}
            </>
          ) : (
            <div class="side-by-side">
              <section aria-label="Yours">
                <h4>Yours (kept in the history)</h4>
                <pre>{c.mine}</pre>
              </section>
              <section aria-label="Theirs">
                <h4>On the server (on the page now)</h4>
                <pre>{c.theirs}</pre>
              </section>
            </div>
          )}
          <MissingPermission action="SYNC resolve" doing="Settling a conflict" />
          {may('SYNC resolve') && (
            <>
              <button type="button" onClick={() => resolve(c.uuid, 'mine')}>
                Keep mine (as a new version)
              </button>
              <button type="button" onClick={() => resolve(c.uuid, 'theirs')}>
                Keep theirs
              </button>
              {c.field !== '*' && <EditedText conflict={c} onKeep={(text) => resolve(c.uuid, 'edited', text)} />}
            </>
          )}
        </article>
      ))}
      <h2>Not synced</h2>
      {notSynced.length === 0 ? (
        <p>Everything your key may read is synced.</p>
      ) : (
        <>
          <p class="hint">
            Your key may not read these on the newsroom server, so this copy does not receive them; everything else still
            syncs. Ask whoever runs the server to grant the permission: they arrive at the next sync once it is.
          </p>
          <ul aria-label="Not synced">
            {notSynced.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </>
      )}
      <h2>Needs attention</h2>
      {(attention.data?.items ?? []).length === 0 && <p>Nothing was refused.</p>}
      <ul>
        {(attention.data?.items ?? []).map((a) => (
          <li key={`${a.record_type}-${a.uuid}`}>
            The <RecordName record={a.record} srn={a.srn} />{' '}
            {a.error.startsWith('the local store') ? 'could not be sent because this copy could not read it' : 'was refused by the server'}: {a.error} Your
            edit is kept here.
          </li>
        ))}
      </ul>
      <h2>Waiting to go</h2>
      {(waiting.data?.items ?? []).length === 0 && <p>Nothing is waiting: everything made here has reached the server.</p>}
      <ul aria-label="Changes waiting to go">
        {(waiting.data?.items ?? []).map((w) => (
          <li key={`${w.record.record_type}-${w.record.uuid}`}>
            The <RecordName record={w.record} srn={w.srn} /> ({w.operation === 'create' ? 'new' : w.operation === 'delete' ? 'deleted' : 'changed'}{' '}
            here since {w.since})
            {Number(w.attempts) > 0 ? `: tried ${counted(w.attempts, 'time')}, last “${w.last_error ?? 'no answer'}”` : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}

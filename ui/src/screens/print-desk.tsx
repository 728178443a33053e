// The print desk: print documents with their issue and workflow, their
// non-exclusive lock (on behalf of someone, and forced, only for those who
// hold PRINTDOCUMENT passThruLock), and the export panel of a story: picked
// by typing, its print text written in the rich editor, downloaded under the
// story's own name. What a role may not do is said, with the permission it
// takes, where its control would be.

import { useState } from 'preact/hooks';
import type { ContentItem, Issue, PrintDocument, User, Workflow } from '../api';
import { useDesk } from '../context';
import { attempt, Problem, useLoad } from '../load';
import { MissingPermission } from '../permission';
import { StoryPicker, type PickedStory } from '../picker';
import { RichText } from '../rich-text';
import { serviceMoment, serviceTime } from '../time';
import * as ops from '../operations';
import { reviewCounts } from '../suggesting';

interface Plan {
  workflows: Workflow[];
  issues: Issue[];
  users: User[];
}

const PASS_THRU = 'PRINTDOCUMENT passThruLock';

export function PrintDesk() {
  const { api, may } = useDesk();
  const documents = useLoad(() => ops.print.documents(api), []);
  const plan = useLoad<Plan>(
    async () => ({
      workflows: (await ops.print.workflows(api)).items,
      issues: (await ops.print.issues(api)).items,
      users: may('USER list') ? (await ops.print.users(api)).items : [],
    }),
    [],
  );
  return (
    <section aria-labelledby="print-heading">
      <h1 id="print-heading">Print desk</h1>
      <Problem message={documents.error ?? plan.error} />
      <table class="list">
        <thead>
          <tr>
            <th scope="col">Document</th>
            <th scope="col">Tracking label</th>
            <th scope="col">Issue</th>
            <th scope="col">Workflow</th>
            <th scope="col">Out with</th>
            <th scope="col">Lock</th>
          </tr>
        </thead>
        <tbody>
          {(documents.data?.items ?? []).map((doc) => (
            <DocumentRow doc={doc} plan={plan.data} onChange={documents.reload} key={doc.uuid} />
          ))}
        </tbody>
      </table>
      {documents.data && documents.data.items.length === 0 && <p>No print documents tracked yet.</p>}
      <MissingPermission action={PASS_THRU} doing="Locking a document on behalf of someone else" />
      <MissingPermission action="PRINTDOCUMENT create" doing="Tracking a new print document" />
      {may('PRINTDOCUMENT create') && <NewDocument plan={plan.data} onMade={documents.reload} />}
      <MissingPermission action="EXPORT get" doing="Exporting a story to print" />
      {may('EXPORT get') && <ExportPanel plan={plan.data} />}
    </section>
  );
}

function DocumentRow({ doc, plan, onChange }: { doc: PrintDocument; plan?: Plan; onChange: () => void }) {
  const { api, me, may } = useDesk();
  const [problem, setProblem] = useState<string>();
  const [forUser, setForUser] = useState('');
  const holder = doc.print_locked_user;
  const holderName = holder ? (holder === me.user.uuid ? 'you' : plan?.users.find((u) => u.uuid === holder)?.name ?? 'someone else') : '—';
  const since = holder ? lockedSince(doc) : undefined;
  const run = async (action: () => Promise<unknown>) => {
    const failed = await attempt(action);
    setProblem(failed);
    if (!failed) onChange();
  };
  return (
    <tr>
      <th scope="row">{doc.label}</th>
      <td>{doc.tracking_path || doc.tracking_label}</td>
      <td>{doc.issue?.label ?? '—'}</td>
      <td>{doc.workflow?.name ?? '—'}</td>
      <td>
        {holderName}
        {since && <span class="hint"> since {since}</span>}
      </td>
      <td>
        {(!holder || holder === me.user.uuid) && (
          <MissingPermission inline action="PRINTDOCUMENT update" doing={`${holder ? 'Unlocking' : 'Locking'} ${doc.label}`} />
        )}
        {may('PRINTDOCUMENT update') && !holder && (
          <button type="button" onClick={() => run(() => ops.print.lockDocument(api, doc.uuid))}>
            Lock {doc.label}
          </button>
        )}
        {may('PRINTDOCUMENT update') && holder === me.user.uuid && (
          <button type="button" onClick={() => run(() => ops.print.unlockDocument(api, doc.uuid))}>
            Unlock {doc.label}
          </button>
        )}
        {holder && holder !== me.user.uuid && (
          <MissingPermission inline action={PASS_THRU} doing={`Unlocking ${doc.label} while someone else has it out`} />
        )}
        {may(PASS_THRU) && holder && holder !== me.user.uuid && (
          <button type="button" class="danger" onClick={() => run(() => ops.print.unlockDocument(api, doc.uuid))}>
            Force unlock {doc.label}
          </button>
        )}
        {may(PASS_THRU) && (
          <span class="on-behalf">
            <select aria-label={`Lock ${doc.label} on behalf of`} value={forUser} onChange={(e) => setForUser(e.currentTarget.value)}>
              <option value="">Lock on behalf of…</option>
              {(plan?.users ?? []).map((u) => (
                <option value={u.uuid} key={u.uuid}>
                  {u.name}
                </option>
              ))}
            </select>
            <button
              type="button"
              disabled={!forUser}
              onClick={() => run(() => ops.print.lockDocument(api, doc.uuid, { on_behalf_of: forUser }))}
            >
              Lock for them
            </button>
          </span>
        )}
        <Problem message={problem} />
      </td>
    </tr>
  );
}

function NewDocument({ plan, onMade }: { plan?: Plan; onMade: () => void }) {
  const { api } = useDesk();
  const [label, setLabel] = useState('');
  const [tracking, setTracking] = useState('');
  const [workflow, setWorkflow] = useState('');
  const [issue, setIssue] = useState('');
  const [problem, setProblem] = useState<string>();
  return (
    <form
      class="panel"
      aria-label="New print document"
      onSubmit={async (e) => {
        e.preventDefault();
        const failed = await attempt(() =>
          ops.print.createDocument(api, {
            label,
            tracking_label: tracking,
            workflow_id: workflow || null,
            issue_id: issue || null,
          }),
        );
        setProblem(failed);
        if (!failed) {
          setLabel('');
          setTracking('');
          onMade();
        }
      }}
    >
      <h2>Track a print document</h2>
      <label>
        Label <input name="label" required value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
      </label>
      <label>
        Tracking label (path and file name) <input name="tracking_label" required value={tracking} onInput={(e) => setTracking(e.currentTarget.value)} />
      </label>
      <Choose label="Workflow" value={workflow} set={setWorkflow} options={(plan?.workflows ?? []).map((w) => [w.uuid, w.name])} />
      <Choose label="Issue" value={issue} set={setIssue} options={(plan?.issues ?? []).map((i) => [i.uuid, i.label])} />
      <Problem message={problem} />
      <button type="submit">Track it</button>
    </form>
  );
}

function Choose({ label, value, set, options }: { label: string; value: string; set: (v: string) => void; options: [string, string][] }) {
  return (
    <label>
      {label}{' '}
      <select value={value} onChange={(e) => set(e.currentTarget.value)}>
        <option value="">None</option>
        {options.map(([v, name]) => (
          <option value={v} key={v}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** When the document's current lock was taken, from its audit (the latest lock or take-over). */
function lockedSince(doc: PrintDocument): string | undefined {
  const taken = [...doc.audit].reverse().find((entry) => entry.action === 'lock' || entry.action === 'lock takeover');
  if (!taken) return undefined;
  const at = serviceMoment(taken.created_at);
  return at ? at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : taken.created_at;
}

/** The print notice on a story's export (who said they work on it in print, and since when), if any. */
interface PrintNotice {
  user?: { name?: string } | null;
  locked_at?: string | null;
}

function printNoticeOf(item: ContentItem | undefined): PrintNotice | undefined {
  const exported = item?.export as { lock?: PrintNotice | null } | null | undefined;
  return exported?.lock ?? undefined;
}

/** The name a downloaded export gets: the story's slug and the format's extension. */
export function exportFileName(story: Pick<PickedStory, 'slug' | 'title'> | undefined, format: string): string {
  const stem =
    story?.slug ||
    story?.title
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '') ||
    'export';
  return `${stem}.${format === 'text' ? 'txt' : format}`;
}

function ExportPanel({ plan }: { plan?: Plan }) {
  const { api, may } = useDesk();
  const [story, setStory] = useState<PickedStory>();
  const uuid = story?.uuid ?? '';
  const [workflow, setWorkflow] = useState('');
  const [issue, setIssue] = useState('');
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  const [done, setDone] = useState('');
  const exported = useLoad(() => (uuid ? ops.print.export(api, uuid) : Promise.resolve(undefined)), [uuid]);
  const notice = printNoticeOf(exported.data);
  const pending = exported.data ? reviewCounts(exported.data.content ?? '').suggestions : 0;
  const run = async (what: string, action: () => Promise<unknown>) => {
    const failed = await attempt(action);
    setProblem(failed);
    setDone(failed ? '' : what);
    exported.reload();
  };
  const download = async (format: string) => {
    await run(`Downloaded the ${format.toUpperCase()}.`, async () => {
      const link = document.createElement('a');
      link.href = URL.createObjectURL(await api.exportFile(uuid, format));
      link.download = exportFileName(story, format);
      link.click();
    });
  };
  const idOf = (list: { id: string; uuid: string }[] | undefined, u: string) => list?.find((x) => x.uuid === u)?.id;
  return (
    <section class="panel" aria-labelledby="export-heading">
      <h2 id="export-heading">Export a story to print</h2>
      <StoryPicker label="Story" picked={story} onPick={setStory} />
      {uuid && (
        <>
          <Choose label="Workflow" value={workflow} set={setWorkflow} options={(plan?.workflows ?? []).map((w) => [w.uuid, w.name])} />
          <Choose label="Issue" value={issue} set={setIssue} options={(plan?.issues ?? []).map((i) => [i.uuid, i.label])} />
          <div class="export-content">
            <p class="field-label">Export content</p>
            {/* The print text in the same rich editor as the story (a fresh one per story picked). */}
            <RichText key={uuid} initial="" label="Export content" editable={may('EXPORT update')} onChange={(body) => setText(body.html)} />
          </div>
          {pending > 0 && (
            <p class="pending-warning" role="note">
              This story has {pending === 1 ? 'a suggested edit' : `${pending} suggested edits`} not yet accepted or rejected: HTML and text print it without
              them, and ICML carries them as InCopy tracked changes.
            </p>
          )}
          <p class="print-notice">
            {notice
              ? `${notice.user?.name ?? 'Someone'} works on this story in print${notice.locked_at ? ` (since ${serviceTime(notice.locked_at)})` : ''}.`
              : 'Nobody has said they work on this story in print.'}{' '}
            {may('EXPORT lock') &&
              (notice ? (
                <button type="button" onClick={() => run('Cleared the print notice.', () => ops.print.clearNotice(api, uuid))}>
                  Clear the print notice
                </button>
              ) : (
                <button type="button" onClick={() => run('Said you work on it in print.', () => ops.print.setNotice(api, uuid))}>
                  Say I work on it in print
                </button>
              ))}
          </p>
          <MissingPermission action="EXPORT update" doing="Writing and saving the export" />
          <MissingPermission action="EXPORT push" doing="Pushing the export to the web" />
          <MissingPermission action="EXPORT pull" doing="Pulling the web text into the export" />
          <MissingPermission action="EXPORT lock" doing="Saying who works on a story in print (the export lock)" />
          <MissingPermission action="EXPORT dump" doing="Downloading the export (ICML, HTML or text)" />
          {may('EXPORT update') && (
            <button
              type="button"
              onClick={() =>
                run('Saved the export.', () =>
                  ops.print.updateExport(api, uuid, {
                    ...(workflow ? { workflow_id: Number(idOf(plan?.workflows, workflow)) } : {}),
                    ...(issue ? { issue_id: Number(idOf(plan?.issues, issue)) } : {}),
                    ...(text ? { content: text } : {}),
                  }),
                )
              }
            >
              Save the export
            </button>
          )}
          {may('EXPORT push') && (
            <button type="button" onClick={() => run('Pushed to the web.', () => ops.print.push(api, uuid))}>
              Push to the web
            </button>
          )}
          {may('EXPORT pull') && (
            <button type="button" onClick={() => run('Pulled from the web.', () => ops.print.pull(api, uuid))}>
              Pull from the web
            </button>
          )}
          {may('EXPORT dump') &&
            ['icml', 'html', 'text'].map((f) => (
              <button type="button" onClick={() => download(f)} key={f}>
                Download {f.toUpperCase()}
              </button>
            ))}
        </>
      )}
      <Problem message={problem} />
      {done && <p role="status">{done}</p>}
    </section>
  );
}

// An item's versions: who saved each and when, what changed in the headline,
// the abstract and the body, word by word, which authors and tags were added
// or removed, and a restore (which brings the version's authors and tags back
// too), and the suggested edits and notes settled, made or taken off since.

import { diffWords } from 'diff';
import { useState } from 'preact/hooks';
import { type ContentItem, type Version } from '../api';
import { useDesk } from '../context';
import { linkChanges, sameLinks, type Linked } from '../link-changes';
import { attempt, Problem, useLoad } from '../load';
import { MissingPermission } from '../permission';
import { describeSuggestion, reviewOf } from '../suggesting';
import { textOf } from '../text';
import { When } from '../when';
import * as ops from '../operations';

/** One field's words, old against new, or nothing when they are the same. */
function FieldDiff({ name, before, after }: { name: string; before: string; after: string }) {
  if (before === after) return null;
  return (
    <section aria-label={`${name}: changes`}>
      <h3>{name}</h3>
      <p class="diff-text">
        {diffWords(before, after).map((part, i) =>
          part.added ? <ins key={i}>{part.value}</ins> : part.removed ? <del key={i}>{part.value}</del> : <span key={i}>{part.value}</span>,
        )}
      </p>
    </section>
  );
}

/** One list's changes (authors or tags), old against new, or nothing when it is the same. */
function LinkDiff({ name, before, after }: { name: string; before: Linked[]; after: Linked[] }) {
  const { added, removed, reordered } = linkChanges(before, after);
  if (added.length === 0 && removed.length === 0 && !reordered) return null;
  const names = (list: Linked[], Mark: 'ins' | 'del') =>
    list.map((l, i) => (
      <span key={l.uuid}>
        {i > 0 && ', '}
        <Mark>{l.name}</Mark>
      </span>
    ));
  return (
    <section aria-label={`${name}: changes`}>
      <h3>{name}</h3>
      {added.length > 0 && <p>Added: {names(added, 'ins')}</p>}
      {removed.length > 0 && <p>Removed: {names(removed, 'del')}</p>}
      {reordered && (
        <p>
          Order now {after.map((l) => l.name).join(', ')} (was {before.map((l) => l.name).join(', ')})
        </p>
      )}
    </section>
  );
}

/** The suggested edits and notes of a version against the page's: those settled or taken off since, and those new. */
function ReviewDiff({ version, before, after }: { version: string; before: string; after: string }) {
  const then = reviewOf(before);
  const now = reviewOf(after);
  const lines: string[] = [];
  for (const s of then.suggestions) {
    if (!now.suggestions.some((x) => x.id === s.id)) lines.push(`${describeSuggestion(s)} “${s.words}” by ${s.author || 'someone'}: pending in version ${version}, accepted or rejected since.`);
  }
  for (const s of now.suggestions) {
    if (!then.suggestions.some((x) => x.id === s.id)) lines.push(`${describeSuggestion(s)} “${s.words}” by ${s.author || 'someone'}: suggested since version ${version}, pending.`);
  }
  for (const n of then.notes) {
    const here = now.notes.find((x) => x.id === n.id);
    if (!here) lines.push(`Note on “${n.words}”: in version ${version}, its words deleted since.`);
    else if (here.resolved !== n.resolved) lines.push(`Note on “${n.words}”: ${here.resolved ? 'resolved' : 'reopened'} since version ${version}.`);
  }
  for (const n of now.notes) {
    if (!then.notes.some((x) => x.id === n.id)) lines.push(`Note on “${n.words}”: added since version ${version}${n.resolved ? ', resolved' : ''}.`);
  }
  if (!lines.length) return null;
  return (
    <section aria-label="Suggested edits and notes: changes">
      <h3>Suggested edits and notes</h3>
      <ul>
        {lines.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </section>
  );
}

/** Whether a version's authors and tags match the item's (a server that does not store them says nothing of them). */
function linksAsNow(version: Version, item: ContentItem): boolean {
  return (!version.authors || sameLinks(version.authors, item.authors)) && (!version.tags || sameLinks(version.tags, item.tags));
}

/** Who saved a version: a person, or the newsroom server's changes brought in by sync. */
function savedBy(version: Version): string {
  return version.user?.name ?? 'a change from the newsroom server';
}

export function Versions({ item, onRestored }: { item: ContentItem; onRestored: () => void }) {
  const { api, may } = useDesk();
  const versions = useLoad(
    () => ops.versions.list(api, { content: item.srn, per_page: 100, order: 'version', dir: 'desc' }),
    [item.srn, item.version],
  );
  const [open, setOpen] = useState<Version>();
  const [problem, setProblem] = useState<string>();
  return (
    <section aria-labelledby="versions-heading" class="versions">
      <h2 id="versions-heading">Versions</h2>
      <Problem message={versions.error ?? problem} />
      <ol>
        {(versions.data?.items ?? []).map((v) => (
          <li key={v.uuid}>
            <button type="button" aria-expanded={open?.uuid === v.uuid} onClick={() => setOpen(open?.uuid === v.uuid ? undefined : v)}>
              Version {v.version} · saved <When stamp={v.created_at} withSeconds /> by {savedBy(v)} · {v.title}
            </button>
          </li>
        ))}
      </ol>
      {open && (
        <div class="diff" aria-label={`Changes from version ${open.version} to the current text`}>
          <p>
            From version {open.version} to what is on the page now (<del>removed</del>, <ins>added</ins>):
          </p>
          <FieldDiff name="Headline" before={open.title} after={item.title} />
          <FieldDiff name="Abstract" before={textOf(open.abstract)} after={textOf(item.abstract ?? '')} />
          <FieldDiff name="Body" before={textOf(open.content)} after={textOf(item.content ?? '')} />
          <ReviewDiff version={open.version} before={open.content} after={item.content ?? ''} />
          {open.authors && <LinkDiff name="Authors" before={open.authors} after={item.authors} />}
          {open.tags && <LinkDiff name="Tags" before={open.tags} after={item.tags} />}
          {open.title === item.title && textOf(open.abstract) === textOf(item.abstract ?? '') && textOf(open.content) === textOf(item.content ?? '') && (
            <p>
              The headline, abstract and body read the same as on the page now
              {linksAsNow(open, item) ? ', and the authors and tags are the same.' : '.'}
            </p>
          )}
          <MissingPermission action="VERSION restore" doing={`Restoring version ${open.version}`} />
          {may('VERSION restore') && <p>Restoring saves this version's headline, abstract, body, authors and tags as a new version.</p>}
          {may('VERSION restore') && (
            <button
              type="button"
              onClick={async () => {
                const failed = await attempt(() => ops.versions.restore(api, open.uuid));
                setProblem(failed);
                if (!failed) onRestored();
              }}
            >
              Restore version {open.version}
            </button>
          )}
        </div>
      )}
    </section>
  );
}

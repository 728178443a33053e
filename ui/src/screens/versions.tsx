// An item's versions: who saved each and when, what changed in the headline,
// the abstract and the body, word by word, and a restore.

import { diffWords } from 'diff';
import { useState } from 'preact/hooks';
import { query, type ContentItem, type Page, type Version } from '../api';
import { useDesk } from '../context';
import { attempt, Problem, useLoad } from '../load';
import { MissingPermission } from '../permission';
import { textOf } from '../text';

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

/** Who saved a version: a person, or the newsroom server's changes brought in by sync. */
function savedBy(version: Version): string {
  return version.user?.name ?? 'a change from the newsroom server';
}

export function Versions({ item, onRestored }: { item: ContentItem; onRestored: () => void }) {
  const { api, may } = useDesk();
  const versions = useLoad(
    () => api.get<Page<'Version'>>(`/v3/version${query({ content: item.srn, per_page: 100, order: 'version', dir: 'desc' })}`),
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
              Version {v.version} · saved {v.created_at} by {savedBy(v)} · {v.title}
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
          {open.title === item.title && textOf(open.abstract) === textOf(item.abstract ?? '') && textOf(open.content) === textOf(item.content ?? '') && (
            <p>The headline, abstract and body read the same as on the page now.</p>
          )}
          <MissingPermission action="VERSION restore" doing={`Restoring version ${open.version}`} />
          {may('VERSION restore') && (
            <button
              type="button"
              onClick={async () => {
                const failed = await attempt(() => api.put(`/v3/version/${open.uuid}`));
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

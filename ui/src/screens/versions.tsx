// An item's versions: what changed, word by word, and a restore.

import { diffWords } from 'diff';
import { useState } from 'preact/hooks';
import { query, type ContentItem, type Page, type Version } from '../api';
import { useDesk } from '../context';
import { attempt, Problem, useLoad } from '../load';
import { textOf } from '../text';

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
              Version {v.version} · {v.modified_at} · {v.title}
            </button>
          </li>
        ))}
      </ol>
      {open && (
        <div class="diff" aria-label={`Changes from version ${open.version} to the current text`}>
          <p>
            From version {open.version} to what is on the page now (<del>removed</del>, <ins>added</ins>):
          </p>
          <p class="diff-text">
            {diffWords(`${open.title}\n\n${textOf(open.content)}`, `${item.title}\n\n${textOf(item.content)}`).map((part, i) =>
              part.added ? <ins key={i}>{part.value}</ins> : part.removed ? <del key={i}>{part.value}</del> : <span key={i}>{part.value}</span>,
            )}
          </p>
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

// The content list: search with filters (type, status, author, tag, days of
// change, on the journalist's clock) and a snippet of where the words matched, pages with a jump, and a
// new story.

import { useState } from 'preact/hooks';
import { type ContentItem, type Page } from '../api';
import { useDesk } from '../context';
import { attempt, Problem, useLoad } from '../load';
import { MissingPermission } from '../permission';
import { SearchPicker, useNamedSearch, type Choice } from '../picker';
import { go } from '../route';
import { inDesktopApp } from '../session';
import { searchedWords, snippet } from '../snippet';
import { textOf } from '../text';
import { localDayEnd, localDayStart } from '../time';
import { When } from '../when';
import * as ops from '../operations';
import { reviewCountWords } from '../suggesting';
import { presenceWords, usePresence } from '../live';

const TYPES = ['article', 'post', 'media', 'page'];
const PER_PAGE = 20;

/**
 * How a search with words is ordered: the best match first (the words in the
 * headline, as a phrase, whole), or the newest story first. Without words the
 * list is the last change first.
 */
type SearchOrder = 'relevance' | 'newest';

/** What the list is narrowed to. */
interface Filters {
  keywords: string;
  order: SearchOrder;
  type: string;
  status: string;
  author?: Choice;
  tag?: Choice;
  from: string;
  to: string;
}

const NO_FILTERS: Filters = { keywords: '', order: 'relevance', type: '', status: '', from: '', to: '' };

/** The list's `order` and `dir` for these filters. */
function listOrder(filters: Filters): { order: string; dir: string } {
  if (!filters.keywords) return { order: 'modified_at', dir: 'desc' };
  return filters.order === 'relevance' ? { order: 'relevance', dir: 'desc' } : { order: 'id', dir: 'desc' };
}

/** A story's text around the searched words, the words marked. */
function Snippet({ item, words }: { item: ContentItem; words: string[] }) {
  const parts = snippet(`${textOf(item.abstract ?? '')} ${textOf(item.content ?? '')}`, words);
  if (!parts) return null;
  return (
    <p class="snippet">
      {parts.map((part, i) => (part.matched ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}
    </p>
  );
}

export function ContentList() {
  const { api, may, me } = useDesk();
  // Who is in which story now, from the change stream.
  const everyone = usePresence(api);
  const presentIn = (uuid: string) => everyone.filter((p) => p.content === uuid);
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [jump, setJump] = useState('');
  const authors = useNamedSearch('author');
  const tags = useNamedSearch('tag');
  // No story at all yet (not just none matching): say what to do first.
  const unfiltered = page === 1 && JSON.stringify({ ...filters, order: NO_FILTERS.order }) === JSON.stringify(NO_FILTERS);
  const list = useLoad<Page<'Content'>>(
    () =>
      ops.content.list(api, {
        keywords: filters.keywords,
        type: filters.type,
        status: filters.status,
        author: filters.author?.uuid,
        tag: filters.tag?.uuid,
        // The days picked are days on the journalist's clock.
        changed_from: localDayStart(filters.from),
        changed_to: localDayEnd(filters.to),
        page,
        per_page: PER_PAGE,
        ...listOrder(filters),
      }),
    [filters, page],
  );
  // The page on screen is the one the service answered (the rows' own page),
  // not the one asked for, which may still be on its way.
  const shown = list.data;
  const [title, setTitle] = useState('');
  const [newType, setNewType] = useState('article');
  const [problem, setProblem] = useState<string>();
  const items = list.data?.items ?? [];
  const words = searchedWords(filters.keywords);
  const apply = (next: Filters) => {
    setDraft(next);
    setPage(1);
    setFilters(next);
  };

  return (
    <section aria-labelledby="content-heading">
      <h1 id="content-heading">Content</h1>
      <form
        class="toolbar filters"
        role="search"
        aria-label="Find stories"
        onSubmit={(e) => {
          e.preventDefault();
          apply({ ...draft, keywords: draft.keywords.trim() });
        }}
      >
        <label>
          Search <input type="search" name="keywords" value={draft.keywords} onInput={(e) => setDraft({ ...draft, keywords: e.currentTarget.value })} />
        </label>
        <button type="submit">Search</button>
        {filters.keywords && (
          <label>
            Order{' '}
            <select name="order" value={draft.order} onChange={(e) => apply({ ...draft, order: e.currentTarget.value as SearchOrder })}>
              <option value="relevance">Best match</option>
              <option value="newest">Newest first</option>
            </select>
          </label>
        )}
        <label>
          Type{' '}
          <select name="type" value={draft.type} onChange={(e) => apply({ ...draft, type: e.currentTarget.value })}>
            <option value="">All types</option>
            {TYPES.map((t) => (
              <option value={t} key={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status{' '}
          <select name="status" value={draft.status} onChange={(e) => apply({ ...draft, status: e.currentTarget.value })}>
            <option value="">Any status</option>
            <option value="published">published</option>
            <option value="scheduled">scheduled</option>
            <option value="draft">not published</option>
          </select>
        </label>
        <label>
          Changed from <input type="date" name="changed_from" value={draft.from} onChange={(e) => apply({ ...draft, from: e.currentTarget.value })} />
        </label>
        <label>
          to <input type="date" name="changed_to" value={draft.to} onChange={(e) => apply({ ...draft, to: e.currentTarget.value })} />
        </label>
      </form>
      <div class="toolbar filters">
        {draft.author ? (
          <button type="button" aria-label={`Author: ${draft.author.name} (remove)`} onClick={() => apply({ ...draft, author: undefined })}>
            Author: {draft.author.name} ✕
          </button>
        ) : (
          <SearchPicker label="By author" placeholder="Type a name…" search={authors} onPick={(author) => apply({ ...draft, author })} />
        )}
        {draft.tag ? (
          <button type="button" aria-label={`Tag: ${draft.tag.name} (remove)`} onClick={() => apply({ ...draft, tag: undefined })}>
            Tag: {draft.tag.name} ✕
          </button>
        ) : (
          <SearchPicker label="With tag" placeholder="Type part of a tag…" search={tags} onPick={(tag) => apply({ ...draft, tag })} />
        )}
      </div>
      <MissingPermission action="CONTENT create" doing="Starting a new story" />
      {may('CONTENT create') && (
        <form
          class="toolbar"
          aria-label="New story"
          onSubmit={async (e) => {
            e.preventDefault();
            let made: ContentItem | undefined;
            const failed = await attempt(async () => {
              made = await ops.content.create(api, { title, type: newType });
            });
            setProblem(failed);
            if (made) go('content', made.uuid);
          }}
        >
          <label>
            New story title <input name="title" required value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
          </label>
          <select name="new-type" aria-label="Type of the new story" value={newType} onChange={(e) => setNewType(e.currentTarget.value)}>
            {TYPES.map((t) => (
              <option value={t} key={t}>
                {t}
              </option>
            ))}
          </select>
          <button type="submit">Create</button>
        </form>
      )}
      <Problem message={problem ?? list.error} />
      <table class="list">
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Type</th>
            <th scope="col">Version</th>
            <th scope="col">Changed</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.uuid}>
              <td>
                <a href={`#/content/${item.uuid}`}>{item.title || '(untitled)'}</a>
                <RowNotes review={reviewCountWords(item.content)} presence={presenceWords(presentIn(item.uuid), me.user.uuid)} />
                {words.length > 0 && <Snippet item={item} words={words} />}
              </td>
              <td>{item.type}</td>
              <td>{item.version}</td>
              <td>
                <When stamp={item.modified_at} />
              </td>
              <td>
                {item.published_at ? 'published' : 'not published'}
                {item.lock ? ' · locked' : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && items.length === 0 && (unfiltered ? <FirstSteps /> : <p>Nothing here yet.</p>)}
      <nav class="pages" aria-label="Pages">
        <button type="button" disabled={!shown || shown.current <= shown.first} onClick={() => shown && setPage(shown.before)}>
          Previous page
        </button>
        <span>
          Page {shown?.current ?? page} of {shown?.total_items_estimated ? 'about ' : ''}
          {shown?.last ?? 1} ({shown?.total_items_estimated ? 'about ' : ''}
          {shown?.total_items ?? 0} items)
        </span>
        <button type="button" disabled={!shown || shown.current >= shown.last} onClick={() => shown && setPage(shown.next)}>
          Next page
        </button>
        <form
          class="jump"
          aria-label="Go to a page"
          onSubmit={(e) => {
            e.preventDefault();
            const wanted = Math.trunc(Number(jump));
            if (shown && wanted >= 1) setPage(Math.min(wanted, Number(shown.last)));
          }}
        >
          <label>
            Page number <input type="number" min={1} max={shown?.last ?? 1} value={jump} onInput={(e) => setJump(e.currentTarget.value)} />
          </label>
          <button type="submit">Go</button>
        </form>
      </nav>
    </section>
  );
}

/**
 * What an empty desk says instead of an empty list: write the first story,
 * and, in the desktop app that syncs with no newsroom server yet, connect
 * to one in Settings (until then everything stays on this computer).
 */
function FirstSteps() {
  const { api, may } = useDesk();
  const desktop = inDesktopApp();
  const status = useLoad(() => (desktop && may('SYNC get') ? ops.sync.status(api) : Promise.resolve(undefined)), []);
  return (
    <section class="first-steps" aria-label="First steps">
      <h2>No stories yet</h2>
      <p>Write the first one: give it a title under “New story” above and choose Create.</p>
      {desktop && status.data && !status.data.remote && (
        <p>
          This computer keeps its own copy of the newsroom’s stories and syncs with no newsroom server yet: what you write
          stays here. To bring in the desk’s stories and send yours, connect to your newsroom’s server in{' '}
          <a href="#/settings">Settings</a>.
        </p>
      )}
      {desktop && status.data?.remote && <p>The newsroom’s stories arrive with the next sync from {status.data.remote}.</p>}
    </section>
  );
}

/** A row's counts of suggested edits and open notes, and who is in the story, each when there is any. */
function RowNotes({ review, presence }: { review: string; presence: string }) {
  return (
    <>
      {review && <span class="review-counts"> {review}</span>}
      {presence && <span class="presence-count"> {presence}</span>}
    </>
  );
}

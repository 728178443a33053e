// The content list: search, a type filter, pages, and a new story.

import { useState } from 'preact/hooks';
import { query, type ContentItem, type ContentSearchPage, type Page, type RequestBody } from '../api';
import { useDesk } from '../context';
import { attempt, Problem, useLoad } from '../load';
import { go } from '../route';

const TYPES = ['article', 'post', 'media', 'page'];
const PER_PAGE = 20;

export function ContentList() {
  const { api, may } = useDesk();
  const [keywords, setKeywords] = useState('');
  const [searched, setSearched] = useState('');
  const [type, setType] = useState('');
  const [page, setPage] = useState(1);
  const list = useLoad<ContentSearchPage | Page<'Content'>>(
    () =>
      searched
        ? api.get<ContentSearchPage>(`/v3/search${query({ type: 'content', keywords: searched, page, per_page: PER_PAGE })}`)
        : api.get<Page<'Content'>>(`/v3/content${query({ type, page, per_page: PER_PAGE, order: 'modified_at', dir: 'desc' })}`),
    [searched, type, page],
  );
  // The page on screen is the one the service answered (the rows' own page),
  // not the one asked for, which may still be on its way.
  const shown = list.data;
  const [title, setTitle] = useState('');
  const [newType, setNewType] = useState('article');
  const [problem, setProblem] = useState<string>();
  const items = (list.data?.items ?? []).filter((item) => !searched || !type || item.type === type);

  return (
    <section aria-labelledby="content-heading">
      <h1 id="content-heading">Content</h1>
      <form
        class="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setSearched(keywords.trim());
        }}
      >
        <label>
          Search <input type="search" name="keywords" value={keywords} onInput={(e) => setKeywords(e.currentTarget.value)} />
        </label>
        <button type="submit">Search</button>
        <label>
          Type{' '}
          <select
            name="type"
            value={type}
            onChange={(e) => {
              setPage(1);
              setType(e.currentTarget.value);
            }}
          >
            <option value="">All types</option>
            {TYPES.map((t) => (
              <option value={t} key={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </form>
      {may('CONTENT create') && (
        <form
          class="toolbar"
          aria-label="New story"
          onSubmit={async (e) => {
            e.preventDefault();
            let made: ContentItem | undefined;
            const failed = await attempt(async () => {
              made = await api.post<ContentItem>('/v3/content', { title, type: newType } satisfies RequestBody<'Content'>);
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
              </td>
              <td>{item.type}</td>
              <td>{item.version}</td>
              <td>{item.modified_at}</td>
              <td>
                {item.published_at ? 'published' : 'not published'}
                {item.lock ? ' · locked' : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && items.length === 0 && <p>Nothing here yet.</p>}
      <nav class="pages" aria-label="Pages">
        <button type="button" disabled={!shown || shown.current <= shown.first} onClick={() => shown && setPage(shown.before)}>
          Previous page
        </button>
        <span>
          Page {shown?.current ?? page} of {shown?.last ?? 1} ({shown?.total_items ?? 0} items)
        </span>
        <button type="button" disabled={!shown || shown.current >= shown.last} onClick={() => shown && setPage(shown.next)}>
          Next page
        </button>
      </nav>
    </section>
  );
}

// Picking records among any number by typing: the service searches as the
// user types, so a picker works the same with ten stories or a million (a
// `<select>` of the newest hundred, or a checkbox per tag, does not).

import { useEffect, useState } from 'preact/hooks';
import { query, type ContentItem, type Page } from './api';
import { useDesk } from './context';

/** How long typing pauses before the service is asked. */
const TYPING_PAUSE_MS = 250;
/** How many matches are offered at once. */
const SHOWN = 20;

/** A record as a picker offers it. */
export interface Choice {
  uuid: string;
  name: string;
  /** Shown after the name, in brackets (a story's type). */
  hint?: string;
}

/** Search-as-you-type over `search`; `onPick` gets the one chosen. */
export function SearchPicker({
  label,
  placeholder,
  search,
  onPick,
  exclude = [],
}: {
  label: string;
  placeholder: string;
  search: (words: string) => Promise<Choice[]>;
  onPick: (choice: Choice) => void;
  exclude?: string[];
}) {
  const [words, setWords] = useState('');
  const [found, setFound] = useState<Choice[]>();
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    const typed = words.trim();
    if (!typed) {
      setFound(undefined);
      return;
    }
    let stale = false;
    const timer = setTimeout(() => {
      search(typed).then(
        (choices) => {
          if (stale) return;
          setFound(choices);
          setProblem(undefined);
        },
        () => !stale && setProblem('The search could not reach the service just now.'),
      );
    }, TYPING_PAUSE_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [words]);
  const listId = `${label.replace(/\W+/g, '-').toLowerCase()}-matches`;
  const offered = found?.filter((choice) => !exclude.includes(choice.uuid));
  return (
    <div class="picker">
      <label>
        {label}{' '}
        <input
          type="search"
          value={words}
          placeholder={placeholder}
          aria-controls={offered ? listId : undefined}
          onInput={(e) => setWords(e.currentTarget.value)}
        />
      </label>
      {problem && <p class="problem">{problem}</p>}
      {offered && (
        <ul id={listId} aria-label={`${label}: matches`} class="picker-matches">
          {offered.length === 0 && <li>Nothing matches these words.</li>}
          {offered.map((choice) => (
            <li key={choice.uuid}>
              <button
                type="button"
                onClick={() => {
                  onPick(choice);
                  setWords('');
                }}
              >
                {choice.name}
                {choice.hint && <span class="hint"> ({choice.hint})</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A story as the pickers hand it over. */
export type PickedStory = Pick<ContentItem, 'uuid' | 'title' | 'slug' | 'type'>;

/** Finds stories whose headline, text or slug hold the words. */
export function useStorySearch(): (words: string) => Promise<PickedStory[]> {
  const { api } = useDesk();
  return async (words) =>
    (await api.get<Page<'Content'>>(`/v3/content${query({ keywords: words, per_page: SHOWN, order: 'modified_at', dir: 'desc' })}`)).items;
}

/** One story picked by typing; the pick is shown under the field. */
export function StoryPicker({ label, picked, onPick }: { label: string; picked?: PickedStory; onPick: (story: PickedStory) => void }) {
  const stories = useStorySearch();
  const [found, setFound] = useState<PickedStory[]>([]);
  return (
    <div>
      <SearchPicker
        label={label}
        placeholder="Type words of the headline…"
        search={async (words) => {
          const hits = await stories(words);
          setFound(hits);
          return hits.map((s) => ({ uuid: s.uuid, name: s.title, hint: s.type }));
        }}
        onPick={(choice) => {
          const story = found.find((s) => s.uuid === choice.uuid);
          if (story) onPick(story);
        }}
      />
      {picked && (
        <p class="picked" role="status">
          Picked: <strong>{picked.title}</strong>
        </p>
      )}
    </div>
  );
}

/** Finds tags (by name or slug) or authors (by name, email or tagline). */
export function useNamedSearch(type: 'tag' | 'author'): (words: string) => Promise<Choice[]> {
  const { api } = useDesk();
  return async (words) => {
    const page = await api.get<Page<'SearchHit'>>(`/v3/search${query({ type, keywords: words, per_page: SHOWN, order: 'name', dir: 'asc' })}`);
    return page.items.map((hit) => ({ uuid: String(hit.uuid), name: String(hit.name ?? hit.uuid) }));
  };
}

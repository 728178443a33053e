// Picking one record among any number by typing: the service searches as
// the user types, so a picker works the same with ten stories or a million
// (a `<select>` of the newest hundred does not).

import { useEffect, useState } from 'preact/hooks';
import { query, type ContentItem, type Page } from './api';
import { useDesk } from './context';

/** How long typing pauses before the service is asked. */
const TYPING_PAUSE_MS = 250;
/** How many matches are offered at once. */
const SHOWN = 20;

/** A story as a picker offers it. */
export type PickedStory = Pick<ContentItem, 'uuid' | 'title' | 'slug' | 'type'>;

/** Search-as-you-type over the stories; `onPick` gets the one chosen. */
export function StoryPicker({ label, picked, onPick }: { label: string; picked?: PickedStory; onPick: (story: PickedStory) => void }) {
  const { api } = useDesk();
  const [words, setWords] = useState('');
  const [found, setFound] = useState<PickedStory[]>();
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    const typed = words.trim();
    if (!typed) {
      setFound(undefined);
      return;
    }
    let stale = false;
    const timer = setTimeout(() => {
      api
        .get<Page<'Content'>>(`/v3/content${query({ keywords: typed, per_page: SHOWN, order: 'modified_at', dir: 'desc' })}`)
        .then(
          (page) => {
            if (stale) return;
            setFound(page.items);
            setProblem(undefined);
          },
          () => !stale && setProblem('The stories could not be searched just now.'),
        );
    }, TYPING_PAUSE_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [api, words]);
  const listId = `${label.replace(/\W+/g, '-').toLowerCase()}-matches`;
  return (
    <div class="picker">
      <label>
        {label}{' '}
        <input
          type="search"
          value={words}
          placeholder="Type words of the headline…"
          aria-controls={listId}
          onInput={(e) => setWords(e.currentTarget.value)}
        />
      </label>
      {picked && (
        <p class="picked" role="status">
          Picked: <strong>{picked.title}</strong>
        </p>
      )}
      {problem && <p class="problem">{problem}</p>}
      {found && (
        <ul id={listId} aria-label={`${label}: matches`} class="picker-matches">
          {found.length === 0 && <li>No story has these words.</li>}
          {found.map((story) => (
            <li key={story.uuid}>
              <button
                type="button"
                aria-pressed={picked?.uuid === story.uuid}
                onClick={() => {
                  onPick(story);
                  setWords('');
                }}
              >
                {story.title} <span class="hint">({story.type})</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

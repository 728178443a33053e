// The containers a story is in, from the story itself: listed, taken out of,
// and added to by typing a container's name. Only manual containers and
// galleries hold picked stories (automatic ones and blogs fill themselves).
// A person whose role may not change containers is told which permission it
// takes instead of meeting a greyed-out button.

import { useState } from 'preact/hooks';
import { type Container, type ContentItem } from '../api';
import { useDesk } from '../context';
import { attempt, Problem, useLoad } from '../load';
import { MissingPermission } from '../permission';
import { SearchPicker } from '../picker';
import * as ops from '../operations';

/** The container types a story is put in by hand. */
const PICKING_TYPES = ['manual', 'gallery'];

/** The stories a container picked, its gallery placeholder left out (the service keeps it first). */
function pickedStories(container: Container): string[] {
  return container.content.map((c) => c.uuid).filter((uuid) => uuid !== container.placeholder);
}

export function StoryContainers({ item }: { item: ContentItem }) {
  const { api, may } = useDesk();
  const holding = useLoad(() => ops.containers.list(api, { content: item.uuid, per_page: 100 }), [item.uuid]);
  const [problem, setProblem] = useState<string>();
  const [done, setDone] = useState('');
  const mayChange = may('CONTAINER update');
  const change = async (container: Container, content: string[], said: string) => {
    const failed = await attempt(() => ops.containers.update(api, container.uuid, { content }));
    setProblem(failed);
    setDone(failed ? '' : said);
    holding.reload();
  };
  const held = holding.data?.items ?? [];
  return (
    <section class="panel" aria-labelledby="story-containers-heading">
      <h2 id="story-containers-heading">In containers</h2>
      {holding.data && held.length === 0 && <p>This story is in no container.</p>}
      <ul>
        {held.map((container) => (
          <li key={container.uuid}>
            {container.title} <span class="type">{container.type}</span>{' '}
            {mayChange && PICKING_TYPES.includes(container.type) && (
              <button
                type="button"
                onClick={() =>
                  change(
                    container,
                    pickedStories(container).filter((uuid) => uuid !== item.uuid),
                    `Took the story out of ${container.title}.`,
                  )
                }
              >
                Take out of {container.title}
              </button>
            )}
          </li>
        ))}
      </ul>
      {mayChange && (
        <SearchPicker
          label="Add to a container"
          placeholder="Type words of the container's title…"
          exclude={held.map((c) => c.uuid)}
          search={async (words) => {
            const page = await ops.containers.list(api, { keywords: words, 'type[]': PICKING_TYPES.join(','), per_page: 20 });
            return page.items.map((c) => ({ uuid: c.uuid, name: c.title, hint: c.type }));
          }}
          onPick={async (choice) => {
            const failed = await attempt(async () => {
              const [container] = await ops.containers.get(api, choice.uuid);
              await change(container, [...pickedStories(container), item.uuid], `Added the story to ${container.title}.`);
            });
            if (failed) setProblem(failed);
          }}
        />
      )}
      <MissingPermission action="CONTAINER update" doing="Putting a story in a container (or taking it out)" />
      {done && <p role="status">{done}</p>}
      <Problem message={problem ?? holding.error} />
    </section>
  );
}

// Containers by type; create and edit with the type rules shown in the form
// itself: manual picks content, automatic and blog take tags, a gallery
// both, with its placeholder. Manual content can be put in order.

import { useState } from 'preact/hooks';
import { type Container, type RequestBody } from '../api';
import { useDesk } from '../context';
import { attempt, Problem, useLoad } from '../load';
import { MissingPermission } from '../permission';
import { SearchPicker, useNamedSearch, useStorySearch, type Choice } from '../picker';
import * as ops from '../operations';

export const TYPE_RULES: Record<string, { content: boolean; tags: boolean; rule: string }> = {
  manual: { content: true, tags: false, rule: 'A manual container holds the stories you pick, in your order. It takes no tags.' },
  automatic: { content: false, tags: true, rule: 'An automatic container fills itself with stories carrying its tags. You pick no stories.' },
  blog: { content: false, tags: true, rule: 'A blog takes tags, not stories; posts are filed into it from the story editor.' },
  gallery: { content: true, tags: true, rule: 'A gallery takes stories and tags; a media placeholder is made with it and listed first.' },
};

export function Containers() {
  const { api, may } = useDesk();
  const [type, setType] = useState('');
  const [editing, setEditing] = useState<Container | 'new'>();
  const list = useLoad(() => ops.containers.list(api, { type, per_page: 100 }), [type]);
  return (
    <section aria-labelledby="containers-heading">
      <h1 id="containers-heading">Containers</h1>
      <div class="toolbar" role="group" aria-label="Show containers of type">
        {['', 'manual', 'automatic', 'blog', 'gallery'].map((t) => (
          <button type="button" aria-pressed={type === t} onClick={() => setType(t)} key={t}>
            {t || 'all'}
          </button>
        ))}
        {may('CONTAINER create') && (
          <button type="button" onClick={() => setEditing('new')}>
            New container
          </button>
        )}
        <MissingPermission inline action="CONTAINER create" doing="Creating a container" />
      </div>
      <Problem message={list.error} />
      <ul class="cards">
        {(list.data?.items ?? []).map((c) => (
          <li key={c.uuid}>
            <button type="button" class="link" onClick={() => setEditing(c)}>
              {c.title}
            </button>{' '}
            <span class="type">{c.type}</span> · {c.content.length} stories · {c.tags.length} tags
          </li>
        ))}
      </ul>
      {list.data && list.data.items.length === 0 && <p>No containers {type ? `of type ${type} ` : ''}yet.</p>}
      {editing && (
        <ContainerForm
          container={editing === 'new' ? undefined : editing}
          key={editing === 'new' ? 'new' : editing.uuid}
          onDone={() => {
            setEditing(undefined);
            list.reload();
          }}
        />
      )}
    </section>
  );
}

function ContainerForm({ container, onDone }: { container?: Container; onDone: () => void }) {
  const { api, may } = useDesk();
  const [title, setTitle] = useState(container?.title ?? '');
  const [type, setType] = useState(container?.type ?? 'manual');
  const [description, setDescription] = useState(container?.description ?? '');
  const [picked, setPicked] = useState<string[]>((container?.content ?? []).map((c) => c.uuid).filter((u) => u !== container?.placeholder));
  const [tags, setTags] = useState<Choice[]>((container?.tags ?? []).map((t) => ({ uuid: t.uuid, name: t.name })));
  const [problem, setProblem] = useState<string>();
  // Titles of the stories picked so far: the container's own, and each one picked here.
  const [titles, setTitles] = useState<Record<string, string>>(Object.fromEntries((container?.content ?? []).map((c) => [c.uuid, c.title])));
  const stories = useStorySearch();
  const tagSearch = useNamedSearch('tag');
  const rules = TYPE_RULES[type];
  const titleOf = (uuid: string) => titles[uuid] ?? uuid;
  const move = (index: number, by: number) => {
    const next = [...picked];
    const [one] = next.splice(index, 1);
    next.splice(index + by, 0, one);
    setPicked(next);
  };
  const allowed = may(container ? 'CONTAINER update' : 'CONTAINER create');
  return (
    <form
      class="panel"
      aria-label={container ? `Edit ${container.title}` : 'New container'}
      onSubmit={async (e) => {
        e.preventDefault();
        const body: RequestBody<'Container'> = {
          title,
          type,
          description,
          content: rules.content ? picked : [],
          tags: rules.tags ? tags.map((t) => t.uuid) : [],
        };
        const failed = await attempt(() => (container ? ops.containers.update(api, container.uuid, body) : ops.containers.create(api, body)));
        setProblem(failed);
        if (!failed) onDone();
      }}
    >
      <h2>{container ? `Edit “${container.title}”` : 'New container'}</h2>
      <label>
        Title <input name="title" required value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      </label>
      <label>
        Type{' '}
        <select name="type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
          {Object.keys(TYPE_RULES).map((t) => (
            <option value={t} key={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <p class="rule" role="note">
        {rules.rule}
      </p>
      <label>
        Description <textarea rows={2} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      {type === 'gallery' && container?.placeholder && <p>Placeholder: {titleOf(container.placeholder)} (first, always).</p>}
      {rules.content && (
        <fieldset>
          <legend>Stories, in order</legend>
          <ol>
            {picked.map((uuid, i) => (
              <li key={uuid}>
                {titleOf(uuid)}{' '}
                <button type="button" aria-label={`Move ${titleOf(uuid)} up`} disabled={i === 0} onClick={() => move(i, -1)}>
                  ↑
                </button>
                <button type="button" aria-label={`Move ${titleOf(uuid)} down`} disabled={i === picked.length - 1} onClick={() => move(i, 1)}>
                  ↓
                </button>
                <button type="button" aria-label={`Take ${titleOf(uuid)} out`} onClick={() => setPicked(picked.filter((p) => p !== uuid))}>
                  ✕
                </button>
              </li>
            ))}
          </ol>
          <SearchPicker
            label="Add a story"
            placeholder="Type words of the headline…"
            exclude={picked}
            search={async (words) => (await stories(words)).map((c) => ({ uuid: c.uuid, name: c.title, hint: c.type }))}
            onPick={(choice) => {
              setTitles({ ...titles, [choice.uuid]: choice.name });
              if (!picked.includes(choice.uuid)) setPicked([...picked, choice.uuid]);
            }}
          />
        </fieldset>
      )}
      {rules.tags && (
        <fieldset>
          <legend>Tags</legend>
          {tags.map((t) => (
            <label class="check" key={t.uuid}>
              <input type="checkbox" checked onChange={() => setTags(tags.filter((x) => x.uuid !== t.uuid))} /> {t.name}
            </label>
          ))}
          <SearchPicker
            label="Add a tag"
            placeholder="Type part of the tag…"
            exclude={tags.map((t) => t.uuid)}
            search={tagSearch}
            onPick={(choice) => setTags([...tags, choice])}
          />
        </fieldset>
      )}
      <Problem message={problem} />
      <MissingPermission
        id="container-permission"
        action={container ? 'CONTAINER update' : 'CONTAINER create'}
        doing={container ? 'Saving a container' : 'Creating a container'}
      />
      <button type="submit" disabled={!allowed} aria-describedby={allowed ? undefined : 'container-permission'}>
        {container ? 'Save' : 'Create'}
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}

// The panels around a story's text in the editor: the lock banner, the
// headline and body counts, whose unsaved text is in the story, text kept
// on this computer, the merge's conflicts' field names, and the authors' and
// tags' choices. Each takes what it shows as props; the saving is the
// editor's.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { Author, ContentItem, Draft, Tag } from '../api';
import type { components } from '../schema';
import { useDesk } from '../context';
import { textOf } from '../text';
import { serviceTime } from '../time';
import { When } from '../when';
import { attempt, Problem } from '../load';
import { SearchPicker, type Choice } from '../picker';
import { characters, headlineLimit, headlineState, words } from '../editor-settings';
import { discardUnsaved, type UnsavedText } from '../unsaved';
import * as ops from '../operations';
import { holderName } from '../story-saving';

type LockRequest = components['schemas']['LockRequest'];

/** The time of day of a moment, as the journalist's clock shows it. */
export function clock(at: number): string {
  return new Date(at).toLocaleTimeString();
}

/** How a person calls a story's field in a merge conflict. */
export const FIELD_NAMES: Record<string, string> = {
  title: 'Headline',
  abstract: 'Abstract',
  slug: 'Slug',
  authors: 'Authors',
  tags: 'Tags',
  dominantAttachment: 'Lead photo',
  published_at: 'Publication time',
};

/** Who else has typed in this story without saving a version yet: their drafts are theirs, never restored here. */
export function OthersUnsaved({ others, version }: { others: Draft[]; version: string }) {
  if (others.length === 0) return null;
  return (
    <p class="others-unsaved" role="status">
      {others.map((d, i) => (
        <span key={d.uuid}>
          {i > 0 && '; '}Unsaved text by {d.user?.name ?? 'someone else'} (a draft at <When stamp={d.created_at} />
          {d.version !== version ? `, on version ${d.version}` : ''})
        </span>
      ))}
      . It stays theirs until they save it; whatever is saved then is merged with what you save.
    </p>
  );
}

/** Text kept on this computer that was typed on an older version, or before a newer draft: offered, never put over the text by itself. */
export function Offered({ local, item, adopt, reopen }: { local: UnsavedText; item: ContentItem; adopt: () => void; reopen: () => void }) {
  return (
    <section class="panel kept-here" aria-label="Your text kept on this computer">
      <p role="status">
        What you typed at {clock(local.at)} on version {local.version} had not reached the server
        {local.version !== item.version ? `, and version ${item.version} was saved since` : ', and a newer draft was saved since'}. It is kept on
        this computer:
      </p>
      {local.fieldsPending && <p>Headline: “{local.title}”</p>}
      <div class="kept-text">{textOf(local.html)}</div>
      <button type="button" onClick={adopt}>
        Put my text in the editor
      </button>{' '}
      <button
        type="button"
        class="danger"
        onClick={async () => {
          await discardUnsaved(local.uuid).catch(() => undefined);
          reopen();
        }}
      >
        Discard it
      </button>
    </section>
  );
}

/** Words and characters, as the counts show them. */
export function countsOf(text: string): string {
  const w = words(text);
  const c = characters(text);
  return `${w === 1 ? '1 word' : `${w} words`}, ${c === 1 ? '1 character' : `${c} characters`}`;
}

/** The headline's counts against its type's limit, warning near it and past it (a warning only: it still saves). */
export function HeadlineCount({ title, type }: { title: string; type: string }) {
  const limit = headlineLimit(type);
  const length = characters(title);
  const state = headlineState(title, type);
  return (
    <p class={`count headline-${state}`} id="headline-count">
      Headline: {words(title) === 1 ? '1 word' : `${words(title)} words`}, {length} of {limit} characters.
      {state === 'near' && <strong> Close to the {type} headline limit of {limit} characters.</strong>}
      {state === 'over' && (
        <strong>
          {' '}
          {length - limit} {length - limit === 1 ? 'character' : 'characters'} over the {type} headline limit of {limit}: shorten it to fit the
          teasers.
        </strong>
      )}
    </p>
  );
}

/**
 * The counts for screen readers, said politely and only when they change
 * meaningfully: the headline nearing or passing its limit, the body passing
 * another hundred words. Not every keystroke.
 */
export function CountsSpoken({ title, type, body }: { title: string; type: string; body: string }) {
  const state = headlineState(title, type);
  const hundreds = Math.floor(words(body) / 100);
  const [said, setSaid] = useState('');
  const last = useRef({ state, hundreds });
  useEffect(() => {
    const before = last.current;
    last.current = { state, hundreds };
    if (state !== before.state) {
      const limit = headlineLimit(type);
      setSaid(
        state === 'over'
          ? `The headline is over the limit of ${limit} characters.`
          : state === 'near'
            ? `The headline is close to the limit of ${limit} characters.`
            : `The headline fits the limit of ${limit} characters.`,
      );
    } else if (hundreds !== before.hundreds && hundreds > 0) {
      setSaid(`The body has ${hundreds * 100} words.`);
    }
  }, [state, hundreds, type]);
  return (
    <p class="visually-hidden" role="status" aria-live="polite">
      {said}
    </p>
  );
}

export function LockBanner(props: { lock: LockRequest | null; readOnly: boolean; waiting: boolean; srn: string; onChange: () => void }) {
  const { api, me, may } = useDesk();
  const [problem, setProblem] = useState<string>();
  const holder = props.lock;
  const mine = holder && holder.user?.uuid === me.user.uuid;
  return (
    <div class={holder && !mine ? 'banner locked' : 'banner'} role="region" aria-label="Lock">
      {!holder && <span>Nobody has this story locked.</span>}
      {mine && <span>You have this story locked: nobody else can change it.</span>}
      {holder && !mine && (
        <strong role="alert">
          {holderName(holder)} is working on this story: they have it locked since {serviceTime(holder.created_at)}.{' '}
          {props.readOnly
            ? 'You can read it but not change it.'
            : props.waiting
              ? 'What you type is kept on this computer and saved once they release the lock.'
              : 'The server takes no changes from you until they release the lock.'}
        </strong>
      )}{' '}
      {!holder && may('LOCKREQUEST create') && (
        <button
          type="button"
          onClick={async () => {
            const failed = await attempt(() => ops.locks.take(api, props.srn));
            setProblem(failed);
            props.onChange();
          }}
        >
          Lock it for me
        </button>
      )}
      {holder && (mine || me.roles.includes('admin')) && (
        <button
          type="button"
          onClick={async () => {
            const failed = await attempt(() => ops.locks.release(api, holder.uuid));
            setProblem(failed);
            props.onChange();
          }}
        >
          Release the lock
        </button>
      )}
      <Problem message={problem} />
    </div>
  );
}

/**
 * The story's authors or tags: the chosen ones as ticked boxes (untick to
 * take one off), more found by typing over the service (any number on the
 * desk), and a new one made here.
 */
export function Choices(props: {
  legend: string;
  noun: string;
  names: Record<string, string>;
  chosen: string[];
  disabled: boolean;
  search: (words: string) => Promise<Choice[]>;
  onToggle: (uuid: string) => void;
  /** Makes a new one; the service answers it as a one-element list. */
  add?: (name: string) => Promise<(Author | Tag)[]>;
  onAdded: (record: { uuid: string; name: string }) => void;
}) {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string>();
  const adding = async () => {
    const add = props.add;
    if (!add || !name.trim()) return;
    let made: (Author | Tag)[] | undefined;
    const failed = await attempt(async () => {
      made = await add(name.trim());
    });
    setProblem(failed);
    const record = made?.[0];
    if (record) {
      setName('');
      props.onAdded(record);
    }
  };
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.chosen.length === 0 && <p class="hint">No {props.noun}s on this story yet.</p>}
      {props.chosen.map((uuid) => (
        <label class="check" key={uuid}>
          <input type="checkbox" checked disabled={props.disabled} onChange={() => props.onToggle(uuid)} /> {props.names[uuid] ?? uuid}
        </label>
      ))}
      {!props.disabled && (
        <SearchPicker
          label={`Find ${props.noun === 'author' ? 'an author' : 'a tag'}`}
          placeholder="Type part of the name…"
          exclude={props.chosen}
          search={props.search}
          onPick={(choice) => props.onAdded({ uuid: choice.uuid, name: choice.name })}
        />
      )}
      {props.add && !props.disabled && (
        <p class="inline-add">
          <label>
            New {props.noun}{' '}
            <input
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
              onKeyDown={(e) => {
                // Enter adds the name here rather than saving the whole story.
                if (e.key === 'Enter') {
                  e.preventDefault();
                  void adding();
                }
              }}
            />
          </label>{' '}
          <button type="button" onClick={() => void adding()}>
            Add {props.noun}
          </button>
        </p>
      )}
      <Problem message={problem} />
    </fieldset>
  );
}

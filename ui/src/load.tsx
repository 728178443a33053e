// Loading data for a screen, and showing a refusal in plain words.

import { useCallback, useEffect, useState } from 'preact/hooks';
import { explain } from './api';

export interface Loaded<T> {
  data?: T;
  error?: string;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `keys` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, keys: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean; keys?: unknown[] }>({ loading: true });
  const [round, setRound] = useState(0);
  const asked = [...keys, round];
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false, keys: asked }),
      (err) => current && setState({ error: explain(err), loading: false, keys: asked }),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, asked);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  // Until the answer for these keys is in, what is held answered other keys:
  // it is still loading (a screen that must not act on an old answer waits).
  const stale = !state.keys || state.keys.length !== asked.length || state.keys.some((key, i) => !Object.is(key, asked[i]));
  return { ...state, loading: state.loading || stale, reload };
}

/** A refusal or failure, announced to screen readers. */
export function Problem({ message }: { message?: string }) {
  if (!message) return null;
  return (
    <p class="problem" role="alert">
      {message}
    </p>
  );
}

/** Runs an action, turning a refusal into a message (`undefined` when it worked). */
export async function attempt(action: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await action();
    return undefined;
  } catch (err) {
    return explain(err);
  }
}

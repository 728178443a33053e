// Screens loaded when first shown, not with the app: the story editor and
// the print desk bring the rich-text editor (TipTap and ProseMirror), most of
// the UI's code, which a desk that sits on the content list never needs, and
// which the desktop app would otherwise hold in memory from its start.

import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Problem } from './load';

/** A component that loads `load`'s module the first time it is shown, then renders what it exports. */
export function later<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  return function Later(props: P) {
    const [, setShown] = useState(0);
    const [error, setError] = useState<string>();
    useEffect(() => {
      if (loaded) return;
      let current = true;
      loading ??= load();
      loading.then(
        (component) => {
          loaded = component;
          if (current) setShown((n) => n + 1);
        },
        () => {
          // A failed import is not cached: showing the screen again tries again.
          loading = undefined;
          if (current) setError('This screen could not be loaded. Reload the page to try again.');
        },
      );
      return () => {
        current = false;
      };
    }, []);
    if (loaded) {
      const Loaded = loaded;
      return <Loaded {...props} />;
    }
    return error ? <Problem message={error} /> : <p class="loading" aria-busy="true">Loading…</p>;
  };
}

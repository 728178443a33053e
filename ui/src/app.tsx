// The desk: navigation, the sync state at a glance, and the screen the address names.

import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api, explain, isTokenRefusal, type Connection, type Me } from './api';
import { DeskContext, type Desk } from './context';
import { go, useRoute } from './route';
import { forgetKey, inDesktopApp, keyConnection, parseKey, rememberKey, startingConnection } from './session';
import { ContentList } from './screens/content-list';
import { Editor } from './screens/editor';
import { Containers } from './screens/containers';
import { PrintDesk } from './screens/print-desk';
import { SyncScreen, SyncBadge } from './screens/sync';
import { Settings } from './screens/settings';

const SCREENS: [string, string][] = [
  ['content', 'Content'],
  ['containers', 'Containers'],
  ['print', 'Print desk'],
  ['sync', 'Sync'],
  ['settings', 'Settings'],
];

export function App() {
  const [connection, setConnection] = useState<Connection | undefined | null>(null);
  const [me, setMe] = useState<Me>();
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    startingConnection().then(setConnection, (err) => {
      setProblem(explain(err));
      setConnection(undefined);
    });
  }, []);

  const api = useMemo(() => (connection ? new Api(connection) : undefined), [connection]);
  useEffect(() => {
    if (!api) return;
    api.get<Me>('/v3/me').then(setMe, (err) => {
      setProblem(explain(err));
      // Only a refused key is forgotten; an unreachable server is not a reason to sign out.
      if (!inDesktopApp() && isTokenRefusal(err)) {
        void forgetKey();
        setConnection(undefined);
      }
    });
  }, [api]);

  if (connection === null) return <p class="loading">Starting…</p>;
  if (!api) {
    return (
      <SignIn
        problem={problem}
        onKey={(key) => {
          setProblem(undefined);
          rememberKey(key).then(
            (signing) => setConnection(keyConnection('', signing)),
            (err) => setProblem(`This browser could not keep the key: ${explain(err)}`),
          );
        }}
      />
    );
  }
  if (!me) return <p class="loading">{problem ?? 'Signing in…'}</p>;
  const desk: Desk = { api, me, may: (action) => me.actions.includes(action) };
  const signOut = inDesktopApp()
    ? undefined
    : () => {
        void forgetKey();
        setMe(undefined);
        setConnection(undefined);
      };
  return (
    <DeskContext.Provider value={desk}>
      <Shell signOut={signOut} />
    </DeskContext.Provider>
  );
}

function Shell({ signOut }: { signOut?: () => void }) {
  const route = useRoute();
  const [screen, ...rest] = route.length ? route : ['content'];
  return (
    <div class="desk">
      <header class="top">
        <strong class="brand">Copydesk</strong>
        <nav aria-label="Screens">
          {SCREENS.map(([name, label]) => (
            <a href={`#/${name}`} aria-current={screen === name ? 'page' : undefined} key={name}>
              {label}
            </a>
          ))}
        </nav>
        <SyncBadge />
      </header>
      <main>
        {screen === 'content' && rest[0] ? (
          <Editor uuid={rest[0]} key={rest[0]} />
        ) : screen === 'content' ? (
          <ContentList />
        ) : screen === 'containers' ? (
          <Containers />
        ) : screen === 'print' ? (
          <PrintDesk />
        ) : screen === 'sync' ? (
          <SyncScreen />
        ) : screen === 'settings' ? (
          <Settings signOut={signOut} />
        ) : (
          <p>
            There is no screen “{screen}”. <a href="#/content">Back to the content</a>.
          </p>
        )}
      </main>
    </div>
  );
}

function SignIn({ problem, onKey }: { problem?: string; onKey: (key: ReturnType<typeof parseKey> & object) => void }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string>();
  return (
    <main class="sign-in">
      <h1>Copydesk</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const key = parseKey(text);
          if (typeof key === 'string') setError(key);
          else onKey(key);
        }}
      >
        <label for="key">Your key (the JSON your administrator gave you)</label>
        <textarea
          id="key"
          rows={5}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          placeholder='{"user_uuid": "…", "public_key": "…", "private_key": "…"}'
        />
        {(error ?? problem) && (
          <p class="problem" role="alert">
            {error ?? problem}
          </p>
        )}
        <button type="submit">Sign in</button>
      </form>
      <p class="hint">
        This browser keeps your key so that nothing on a page can read it out; you stay signed in until you sign out
        (Settings).
      </p>
    </main>
  );
}

export { go };

// The desk: navigation, the sync state at a glance, and the screen the address names.

import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api, explain, isTokenRefusal, SignedInApi, type Connection, type Me, type SignedOut } from './api';
import { DeskContext, type Desk } from './context';
import { currentRoute, go, useRoute } from './route';
import { forgetKey, inDesktopApp, keyConnection, rememberKey, startingConnection } from './session';
import { ContentList } from './screens/content-list';
import { Containers } from './screens/containers';
import { SyncScreen, SyncBadge } from './screens/sync';
import { Settings } from './screens/settings';
import { later } from './later';
import { SignIn } from './screens/sign-in';

// The screens that bring the rich-text editor load when first shown (see `later`).
const Editor = later(() => import('./screens/editor').then((m) => m.Editor));
const PrintDesk = later(() => import('./screens/print-desk').then((m) => m.PrintDesk));

/** What a browser that signed out without reaching the server is told: its key still works until revoked. */
function notRevoked(why: string): string {
  return `Signed out of this browser, but its key could not be revoked on the server (${why}), so a copy of it would still work. Sign in and out again once the server can be reached, or ask an administrator to revoke it (copydesk-server key list, then key revoke).`;
}

/** What a browser whose key the service refused is told on the sign-in screen. */
const KEY_REFUSED = 'This browser’s sign-in is no longer accepted (its key was revoked or has run out). Sign in again.';

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
  const route = useRoute();
  // `#/sign-in/{token}`: a one-time link, used at once (signed in or not).
  const link = route[0] === 'sign-in' && !inDesktopApp() ? route[1] : undefined;

  useEffect(() => {
    startingConnection().then(setConnection, (err) => {
      setProblem(explain(err));
      setConnection(undefined);
    });
  }, []);

  const api = useMemo(() => {
    if (!connection) return undefined;
    if (inDesktopApp()) return new Api(connection);
    // A key the service refuses (revoked, or its user gone) is forgotten,
    // and the person is sent back to sign in, from whichever screen.
    return new SignedInApi(connection, () => {
      void forgetKey();
      setProblem(KEY_REFUSED);
      setMe(undefined);
      setConnection(undefined);
      if (currentRoute()[0] !== 'sign-in') go('sign-in');
    });
  }, [connection]);
  useEffect(() => {
    if (!api) return;
    api.get<Me>('/v3/me').then(setMe, (err) => {
      // Only a refused key is forgotten (by the client above); an unreachable server is not a reason to sign out.
      if (!isTokenRefusal(err) || inDesktopApp()) setProblem(explain(err));
    });
  }, [api]);
  useEffect(() => {
    // Signed in, the sign-in screen has nothing to do: on to the desk.
    if (api && me && route[0] === 'sign-in' && !link) go('content');
  }, [api, me, route[0], link]);

  if (connection === null) return <p class="loading">Starting…</p>;
  if (!api || link) {
    return (
      <SignIn
        key={link ?? ''}
        problem={problem}
        link={link}
        onKey={async (key) => {
          let signing;
          try {
            signing = await rememberKey(key);
          } catch (err) {
            throw new Error(`This browser could not keep the key: ${explain(err)}`);
          }
          setProblem(undefined);
          setMe(undefined);
          setConnection(keyConnection('', signing));
          // The link's token leaves the address and the history: it is spent.
          if (currentRoute()[0] === 'sign-in') location.replace('#/content');
        }}
      />
    );
  }
  if (!me) return <p class="loading">{problem ?? 'Signing in…'}</p>;
  const desk: Desk = { api, me, may: (action) => me.actions.includes(action) };
  // A key signing in made for this browser is revoked on the server first,
  // so a copy of it stops working; if the server cannot be reached the
  // browser still signs out, and says the key lives on. A key the server
  // already refuses needs no revoking.
  const signOut = inDesktopApp()
    ? undefined
    : async () => {
        let notice: string | undefined;
        if (api.connection.ownKey) {
          try {
            await api.post<SignedOut>('/v3/sign-out');
          } catch (err) {
            if (!isTokenRefusal(err)) notice = notRevoked(explain(err));
          }
        }
        await forgetKey().catch(() => undefined);
        setProblem(notice);
        setMe(undefined);
        setConnection(undefined);
      };
  return (
    <DeskContext.Provider value={desk}>
      <Shell signOut={signOut} ownKey={api.connection.ownKey === true} />
    </DeskContext.Provider>
  );
}

function Shell({ signOut, ownKey }: { signOut?: () => Promise<void>; ownKey: boolean }) {
  const route = useRoute();
  const [screen, ...rest] = route.length ? route : ['content'];
  return (
    <div class="desk">
      {/* A keyboard user's first stop: past the screens' links to the work itself (the story, in the editor). */}
      <a
        class="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          const target = document.querySelector<HTMLElement>('main [contenteditable="true"], main input[name="title"]') ?? document.querySelector<HTMLElement>('main');
          target?.focus();
        }}
      >
        Skip to the {screen === 'content' && rest[0] ? 'story' : 'content'}
      </a>
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
      <main id="main" tabIndex={-1}>
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
          <Settings signOut={signOut} ownKey={ownKey} />
        ) : (
          <p>
            There is no screen “{screen}”. <a href="#/content">Back to the content</a>.
          </p>
        )}
      </main>
    </div>
  );
}

export { go };

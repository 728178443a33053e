// Signing in in a browser: a name and password, a one-time link
// (`#/sign-in/{token}` signs in at once), or, for those who were given one,
// a key pair pasted as JSON. Whichever way, this browser keeps a key pair of
// its own (session.ts), which an administrator can revoke on its own.

import { useEffect, useState } from 'preact/hooks';
import { explainSignIn, signIn } from '../api';
import { parseKey, signedInKey, type KeyPair } from '../session';

export function SignIn({
  problem,
  link,
  onKey,
}: {
  /** Why the person is here again (a refused key), in words. */
  problem?: string;
  /** A sign-in link's token, from `#/sign-in/{token}`: used at once. */
  link?: string;
  /** Keeps the key pair and opens the desk; rejects with the reason in words. */
  onKey: (key: KeyPair) => Promise<void>;
}) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [keyText, setKeyText] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<string>();

  const finish = async (getKey: () => Promise<KeyPair>, doing: string) => {
    setBusy(doing);
    setError(undefined);
    try {
      await onKey(await getKey());
    } catch (err) {
      setError(explainSignIn(err));
    } finally {
      setBusy(undefined);
    }
  };

  useEffect(() => {
    if (link) void finish(async () => signedInKey(await signIn('', { link })), 'Signing in with your link…');
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [link]);

  const message = error ?? problem;
  return (
    <main class="sign-in">
      <h1>Sign in to Copydesk</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (busy) return;
          if (name.trim() || password) {
            if (!name.trim() || !password) {
              setError('Give both your name and your password.');
              return;
            }
            void finish(async () => signedInKey(await signIn('', { name: name.trim(), password })), 'Signing in…');
            return;
          }
          if (keyText.trim()) {
            const key = parseKey(keyText);
            if (typeof key === 'string') setError(key);
            else void finish(async () => key, 'Signing in…');
            return;
          }
          setError('Give your name and password (or paste a key).');
        }}
      >
        <label>
          Name <input name="username" autocomplete="username" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Password{' '}
          <input
            name="password"
            type="password"
            autocomplete="current-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {message && (
          <p class="problem" role="alert">
            {message}
          </p>
        )}
        {busy && <p role="status">{busy}</p>}
        <button type="submit" disabled={!!busy}>
          Sign in
        </button>
        <fieldset class="secondary">
          <legend>Or with a key pair</legend>
          <p class="hint">
            If your administrator gave you a key instead (the JSON <code>copydesk-server key create --json</code> prints),
            paste it here, leave the name and password empty, and sign in.
          </p>
          <label for="key">Your key</label>
          <textarea
            id="key"
            rows={4}
            value={keyText}
            onInput={(e) => setKeyText(e.currentTarget.value)}
            placeholder='{"user_uuid": "…", "public_key": "…", "private_key": "…"}'
          />
        </fieldset>
      </form>
      <p class="hint">
        No password yet? Ask your administrator for one, or for a sign-in link. This browser gets a key of its own, kept
        so that nothing on a page can read it out; you stay signed in until you sign out (Settings).
      </p>
    </main>
  );
}

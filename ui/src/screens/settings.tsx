// Who I am, and the newsroom server this copy syncs with.

import { useState } from 'preact/hooks';
import { useDesk } from '../context';
import { attempt, Problem, useLoad } from '../load';
import { desktopCommand, inDesktopApp, parseKey } from '../session';
import { When } from '../when';
import * as ops from '../operations';

export function Settings({ signOut, ownKey }: { signOut?: () => Promise<void>; ownKey?: boolean }) {
  const { me, api, may } = useDesk();
  const [signingOut, setSigningOut] = useState(false);
  const status = useLoad(
    () => (may('SYNC get') ? ops.sync.status(api) : Promise.resolve(undefined)),
    [],
  );
  return (
    <section aria-labelledby="settings-heading">
      <h1 id="settings-heading">Settings</h1>
      <h2>Who I am</h2>
      <dl class="facts">
        <dt>Name</dt>
        <dd>{me.user.name}</dd>
        <dt>Roles</dt>
        <dd>{me.roles.join(', ') || 'none'}</dd>
        <dt>Permissions</dt>
        <dd>{me.actions.length} access actions</dd>
      </dl>
      {signOut && (
        <>
          {ownKey ? (
            <p class="hint">
              This browser signed in with a key pair of its own, kept so that no page can read it out. Signing out revokes it
              on the server, so a copy of it stops working too, and deletes it here. An administrator can also revoke it (
              <code>copydesk-server key list</code>, then <code>key revoke</code>), and this browser is then asked to sign in
              again.
            </p>
          ) : (
            <p class="hint">
              This browser uses a key pair an administrator gave you, which may be in use elsewhere too. Signing out deletes it
              here only; the key keeps working until an administrator revokes it (<code>copydesk-server key revoke</code>).
            </p>
          )}
          <button
            type="button"
            disabled={signingOut}
            onClick={() => {
              setSigningOut(true);
              void signOut();
            }}
          >
            Sign out
          </button>
          {signingOut && <p role="status">Signing out…</p>}
        </>
      )}
      <h2>Newsroom server</h2>
      {inDesktopApp() ? <RemoteForm /> : <p>This copy is served by {location.host}; its sync is set where it runs.</p>}
      {status.data && (
        <p>
          Last good sync: {status.data.last_sync_at ? <When stamp={status.data.last_sync_at} /> : 'never'}.
          {status.data.last_error ? ' The last sync failed; the Sync screen says why.' : ''}
        </p>
      )}
    </section>
  );
}

/** In the desktop app: the central server's address and the key (kept in the system keychain). */
function RemoteForm() {
  const [address, setAddress] = useState('');
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string>();
  const [done, setDone] = useState('');
  const current = useLoad(
    () => desktopCommand<{ remote: string | null }>('remote_settings'),
    [],
  );
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        const parsed = parseKey(key);
        if (typeof parsed === 'string') {
          setProblem(parsed);
          return;
        }
        let started = false;
        const failed = await attempt(async () => {
          started = await desktopCommand<boolean>('set_remote', { address, key: parsed });
        });
        setProblem(failed);
        if (failed) {
          setDone('');
          return;
        }
        // The key is in the keychain now; it need not stay on screen.
        setKey('');
        current.reload();
        setDone(
          started
            ? 'Saved in the system keychain. Sync starts now and keeps going in the background.'
            : 'Saved in the system keychain. Sync is already running; the new key is used from the next start of Copydesk.',
        );
      }}
    >
      <p>Syncs with: {current.data?.remote ?? 'no server yet'}</p>
      <label>
        Server address <input name="address" placeholder="http://newsroom-server:8080" value={address} onInput={(e) => setAddress(e.currentTarget.value)} />
      </label>
      <label>
        Your key on that server (JSON) <textarea rows={4} value={key} onInput={(e) => setKey(e.currentTarget.value)} />
      </label>
      <Problem message={problem} />
      {done && <p role="status">{done}</p>}
      <button type="submit">Save</button>
    </form>
  );
}

// How the UI learns where its service is and who it is working as.
//
// In the desktop app, the shell answers one Tauri command, `connection`,
// with the address of its embedded service and a token made for this
// launch. In a browser, the service is the page's own origin and the person
// signs in with a name and password or a one-time link (`POST /v3/sign-in`
// answers a key pair made for this browser), or pastes a key pair (the JSON
// `copydesk-server key create --json` prints); tokens are then signed here
// with `jose`, as the contract says a client signs them (HS256, claim `pk`).
//
// The private key never stays in the page as text. Signing in imports it as
// a non-extractable WebCrypto HMAC key and keeps that CryptoKey in
// IndexedDB: a script that got into the page could sign with it while the
// page is open, but could never read the key out and take it elsewhere.
// IndexedDB outlives the tab, so a person stays signed in across reloads and
// browser restarts (and offline) until they sign out, as with any newsroom
// web app; signing out deletes the key, and a key that signing in made for
// this browser is revoked on the server first (`POST /v3/sign-out`), so a
// copy of it stops working too. A pasted key is the administrator's (it may
// be in use elsewhere): signing out only forgets it here.

import { SignJWT } from 'jose';
import type { Connection, SignedIn } from './api';

export interface KeyPair {
  public_key: string;
  private_key: string;
  user_uuid?: string;
  /** Made for this browser by signing in, so signing out revokes it on the server. */
  own?: boolean;
}

/** Where the signed-in key lived before it was kept as a CryptoKey: read once, then removed. */
const OLD_STORED_KEY = 'copydesk.key';
const TOKEN_LIFETIME_SECONDS = 3600;

interface TauriGlobal {
  core: { invoke: <T>(command: string, args?: Record<string, unknown>) => Promise<T> };
}

function tauri(): TauriGlobal | undefined {
  return (window as unknown as { __TAURI__?: TauriGlobal }).__TAURI__;
}

/** Whether the UI runs inside the desktop app. */
export function inDesktopApp(): boolean {
  return tauri() !== undefined;
}

/** Runs one of the desktop shell's commands (only inside the desktop app). */
export function desktopCommand<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  const shell = tauri();
  if (!shell) return Promise.reject(new Error('This works in the desktop app only.'));
  return shell.core.invoke<T>(command, args);
}

/** The desktop app's embedded service, as its shell describes it. */
async function desktopConnection(): Promise<Connection> {
  const answer = await desktopCommand<{ base: string; token: string }>('connection');
  return { base: answer.base, token: async () => answer.token };
}

/** A key pair as the browser keeps it: the public key, and the private key as a CryptoKey that cannot be read out. */
export interface SigningKey {
  public_key: string;
  user_uuid?: string;
  key: CryptoKey;
  /** Made for this browser by signing in (a pasted key is not). */
  own?: boolean;
}

/** Signs tokens with a kept key, renewing them before they run out. */
export function keyConnection(base: string, signing: SigningKey): Connection {
  let cached: { token: string; until: number } | undefined;
  return {
    base,
    ownKey: signing.own === true,
    token: async () => {
      const now = Math.floor(Date.now() / 1000);
      if (cached && cached.until - 60 > now) return cached.token;
      const token = await new SignJWT({ pk: signing.public_key })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt(now)
        .setExpirationTime(now + TOKEN_LIFETIME_SECONDS)
        .sign(signing.key);
      cached = { token, until: now + TOKEN_LIFETIME_SECONDS };
      return token;
    },
  };
}

/** Turns a pasted key pair into a key kept for signing; the private key text is not kept. */
async function signingKey(key: KeyPair): Promise<SigningKey> {
  const cryptoKey = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(key.private_key),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return { public_key: key.public_key, user_uuid: key.user_uuid, key: cryptoKey, own: key.own === true };
}

const KEY_DATABASE = 'copydesk';
const KEY_STORE = 'keys';
const SIGNED_IN = 'signed-in';

/** Runs one request on the key store of IndexedDB. */
function keyStore<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open(KEY_DATABASE, 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore(KEY_STORE);
    opening.onerror = () => reject(opening.error);
    opening.onsuccess = () => {
      const db = opening.result;
      const transaction = db.transaction(KEY_STORE, mode);
      const request = work(transaction.objectStore(KEY_STORE));
      transaction.oncomplete = () => {
        db.close();
        resolve(request.result);
      };
      transaction.onerror = () => {
        db.close();
        reject(transaction.error);
      };
    };
  });
}

/** Reads a key pair pasted by a person; `undefined` with a reason when it is not one. */
export function parseKey(text: string): KeyPair | string {
  try {
    const value = JSON.parse(text) as Partial<KeyPair>;
    if (typeof value.public_key === 'string' && typeof value.private_key === 'string') {
      return { public_key: value.public_key, private_key: value.private_key, user_uuid: value.user_uuid };
    }
    return 'That is JSON, but not a key: it needs "public_key" and "private_key".';
  } catch {
    return 'Paste the whole JSON that "copydesk-server key create --json" printed.';
  }
}

/** Keeps a key pair for signing (none: signs out); resolves with what is kept. */
export async function rememberKey(key: KeyPair): Promise<SigningKey> {
  const signing = await signingKey(key);
  await keyStore('readwrite', (store) => store.put(signing, SIGNED_IN));
  return signing;
}

/** The key pair a sign-in answered, as a pasted one would be. */
export function signedInKey(signed: SignedIn): KeyPair {
  return { public_key: signed.public_key, private_key: signed.private_key, user_uuid: signed.user.uuid, own: true };
}

/** Forgets the kept key here (revoking it on the server is the caller's, through the API). */
export async function forgetKey(): Promise<void> {
  sessionStorage.removeItem(OLD_STORED_KEY);
  await keyStore('readwrite', (store) => store.delete(SIGNED_IN));
}

/** The kept key, taking over one an earlier version left as text in sessionStorage. */
async function rememberedKey(): Promise<SigningKey | undefined> {
  const old = sessionStorage.getItem(OLD_STORED_KEY);
  if (old) {
    sessionStorage.removeItem(OLD_STORED_KEY);
    const parsed = parseKey(old);
    if (typeof parsed === 'object') return rememberKey(parsed);
  }
  const kept = await keyStore<SigningKey | undefined>('readonly', (store) => store.get(SIGNED_IN));
  return kept?.key instanceof CryptoKey ? kept : undefined;
}

/** The connection to start with: the desktop app's, or a remembered sign-in; none means sign in. */
export async function startingConnection(): Promise<Connection | undefined> {
  if (inDesktopApp()) return desktopConnection();
  const key = await rememberedKey();
  return key ? keyConnection('', key) : undefined;
}

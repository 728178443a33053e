// How the UI learns where its service is and who it is working as.
//
// In the desktop app, the shell answers one Tauri command, `connection`,
// with the address of its embedded service and a token made for this
// launch. In a browser, the service is the page's own origin and the person
// signs in with their key pair (the JSON `copydesk-server key create --json`
// prints); tokens are then signed here with `jose`, as the contract says a
// client signs them (HS256, claim `pk`).

import { SignJWT } from 'jose';
import type { Connection } from './api';

export interface KeyPair {
  public_key: string;
  private_key: string;
  user_uuid?: string;
}

const STORED_KEY = 'copydesk.key';
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

/** Signs tokens with a key pair, renewing them before they run out. */
export function keyConnection(base: string, key: KeyPair): Connection {
  let cached: { token: string; until: number } | undefined;
  const secret = new TextEncoder().encode(key.private_key);
  return {
    base,
    token: async () => {
      const now = Math.floor(Date.now() / 1000);
      if (cached && cached.until - 60 > now) return cached.token;
      const token = await new SignJWT({ pk: key.public_key })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt(now)
        .setExpirationTime(now + TOKEN_LIFETIME_SECONDS)
        .sign(secret);
      cached = { token, until: now + TOKEN_LIFETIME_SECONDS };
      return token;
    },
  };
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

export function rememberKey(key: KeyPair | undefined): void {
  if (key) sessionStorage.setItem(STORED_KEY, JSON.stringify(key));
  else sessionStorage.removeItem(STORED_KEY);
}

function rememberedKey(): KeyPair | undefined {
  const stored = sessionStorage.getItem(STORED_KEY);
  const parsed = stored ? parseKey(stored) : undefined;
  return typeof parsed === 'object' ? parsed : undefined;
}

/** The connection to start with: the desktop app's, or a remembered sign-in; none means sign in. */
export async function startingConnection(): Promise<Connection | undefined> {
  if (inDesktopApp()) return desktopConnection();
  const key = rememberedKey();
  return key ? keyConnection('', key) : undefined;
}

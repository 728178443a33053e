// The real service for the browser and desktop tests: copydesk-server on a
// loopback port over a given data directory, and tokens signed with a key
// pair as the contract says (HS256, claim `pk`).

import { spawn } from 'node:child_process';
import { SignJWT } from 'jose';

/** Serves the replica in `dir`; resolves with the process and its address once it listens. */
export async function serveOn(server, dir, extra = []) {
  const child = spawn(server, ['serve', '--listen', '127.0.0.1:0', '--data', dir, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RUST_LOG: 'info' },
  });
  const base = await new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${seen}`)), 20000);
    const read = (chunk) => {
      seen += chunk.toString();
      const found = /listening on (http:\/\/[0-9.:]+)/.exec(seen);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => reject(new Error(`the server exited (${code}): ${seen}`)));
  });
  return { child, base };
}

/** A token for `key`, valid for an hour. */
export async function tokenFor(key) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ pk: key.public_key })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(new TextEncoder().encode(key.private_key));
}

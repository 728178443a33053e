// Every call to the service goes through the one client (src/api.ts), which
// signs it, types it by the OpenAPI document and puts each refusal in plain
// words; a screen that called `fetch` itself would skip all three.

import { describe, expect, it } from 'vitest';

const sources = import.meta.glob<string>('../src/**/*.{ts,tsx}', { query: '?raw', import: 'default', eager: true });
const CLIENT = '../src/api.ts';
const FETCH_CALL = /\bfetch\s*\(/;

describe('the one client', () => {
  it('reads the UI sources, the client among them', () => {
    expect(Object.keys(sources)).toContain(CLIENT);
    expect(sources[CLIENT]).toMatch(FETCH_CALL);
  });

  it('is the only module under src/ that calls fetch', () => {
    const calling = Object.entries(sources)
      .filter(([path, text]) => path !== CLIENT && FETCH_CALL.test(text))
      .map(([path]) => path);
    expect(calling).toEqual([]);
  });
});

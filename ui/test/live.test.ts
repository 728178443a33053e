// The change stream as the UI reads it: events cut from the bytes as they
// come (heartbeats dropped, an event split across reads kept whole),
// presence kept from arrivals and departures, and said in words.

import { describe, expect, it } from 'vitest';
import { applyPresence, presenceWords, readEvents, type Presence } from '../src/live';

const ana: Presence = { content: 's1', user_uuid: 'u-ana', name: 'Ana Writer', block: 'a1b2c', editing: true, since: '2026-11-28 10:00:00', here: true };
const bo: Presence = { ...ana, user_uuid: 'u-bo', name: 'Bo Desk', block: null, editing: false };

describe('the change stream in the UI', () => {
  it('reads whole events, drops heartbeats and keeps a part that is still arriving', () => {
    const first = readEvents(':heartbeat\n\nid: 7\nevent: change\ndata: {"seq":"7"}\n\nevent: presence\ndata: {"na');
    expect(first.events).toEqual([{ id: '7', event: 'change', data: '{"seq":"7"}' }]);
    const second = readEvents(`${first.rest}me":"Ana"}\r\n\r\n`);
    expect(second.events).toEqual([{ event: 'presence', data: '{"name":"Ana"}' }]);
    expect(second.rest).toBe('');
  });

  it('keeps a CR that may begin a CRLF for the next read, not taking it for a line end', () => {
    const first = readEvents('event: change\r\ndata: {}\r');
    expect(first.events).toEqual([]);
    const second = readEvents(`${first.rest}\n\r\n`);
    expect(second.events).toEqual([{ event: 'change', data: '{}' }]);
  });

  it('keeps one entry a person and story, moved or gone as events say', () => {
    let now = applyPresence([], ana);
    now = applyPresence(now, bo);
    now = applyPresence(now, { ...ana, block: 'd3e4f' });
    expect(now.map((p) => [p.name, p.block])).toEqual([
      ['Bo Desk', null],
      ['Ana Writer', 'd3e4f'],
    ]);
    now = applyPresence(now, { ...bo, here: false });
    expect(now.map((p) => p.name)).toEqual(['Ana Writer']);
  });

  it('says who else is there, editing or reading, and never the reader themself', () => {
    expect(presenceWords([ana, bo], 'u-bo')).toBe('Ana Writer is editing');
    expect(presenceWords([ana, bo], 'u-someone')).toBe('Ana Writer is editing; Bo Desk is reading');
    expect(presenceWords([ana], 'u-ana')).toBe('');
  });
});

// The service's change stream (`GET /v3/changes/stream`) as the UI hears
// it: one connection per signed-in window (`Api.stream`: an EventSource
// cannot send the bearer token), opened again after a pause when it drops,
// resuming after the last change seen. Screens subscribe to changes (to
// read a story again at once) and to presence (who is in which story, and
// in which block), and can ask whether the stream is up ("live").

import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from './api';
import * as ops from './operations';
import type { components } from './schema';

export type Presence = components['schemas']['Presence'];
export type Change = components['schemas']['Change'];

/** One Server-Sent Event: its id (if any), its name and its data. */
export interface StreamEvent {
  id?: string;
  event: string;
  data: string;
}

/**
 * The whole events in `buffer` (each ends with a blank line), and what is
 * left of an event still arriving. Comment lines (heartbeats) are dropped.
 */
export function readEvents(buffer: string): { events: StreamEvent[]; rest: string } {
  const events: StreamEvent[] = [];
  // A CR at the end may be the first half of a CRLF still arriving: kept for the next read.
  const held = buffer.endsWith('\r') ? '\r' : '';
  const normalised = (held ? buffer.slice(0, -1) : buffer).replace(/\r\n?/g, '\n');
  const blocks = normalised.split('\n\n');
  const rest = (blocks.pop() ?? '') + held;
  for (const block of blocks) {
    const event: StreamEvent = { event: 'message', data: '' };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (!line || line.startsWith(':')) continue;
      const at = line.indexOf(':');
      const field = at === -1 ? line : line.slice(0, at);
      const value = at === -1 ? '' : line.slice(at + 1).replace(/^ /, '');
      if (field === 'id') event.id = value;
      else if (field === 'event') event.event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length) {
      event.data = data.join('\n');
      events.push(event);
    }
  }
  return { events, rest };
}

/** Everyone in a story now, kept from `GET /v3/presence` and the stream's presence events. */
export function applyPresence(now: Presence[], event: Presence): Presence[] {
  const others = now.filter((p) => !(p.content === event.content && p.user_uuid === event.user_uuid));
  return event.here ? [...others, event] : others;
}

type Listener<T> = (value: T) => void;

/** How long a stream may say nothing (it sends a heartbeat every 15 s) before it is taken for gone. */
const SILENCE_MS = 45_000;

/** One window's stream. */
class Live {
  private lastId?: string;
  private presence: Presence[] = [];
  /** The presence events heard while the list is on its way, applied again on top of it (it may be older than they are). */
  private heardMeanwhile: Presence[] | undefined;
  private up = false;
  /** Told each change, and `undefined` when changes may have been missed. */
  private readonly changeListeners = new Set<Listener<Change | undefined>>();
  private readonly presenceListeners = new Set<Listener<Presence[]>>();
  private readonly upListeners = new Set<Listener<boolean>>();
  private started = false;
  private opened = false;

  constructor(private readonly api: Api) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    void this.run();
  }

  private async run(): Promise<void> {
    let pause = 1000;
    for (;;) {
      try {
        const response = await ops.changes.stream(this.api, this.lastId);
        if (response.ok && response.body) {
          this.setUp(true);
          pause = 1000;
          void this.loadPresence();
          // Opened again without an id to resume after, changes made meanwhile send no event: anything may have changed.
          if (this.opened && !this.lastId) this.changeListeners.forEach((listener) => listener(undefined));
          this.opened = true;
          await this.read(response.body);
        }
      } catch {
        // The network or the service is away: try again after the pause.
      }
      this.setUp(false);
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 30_000);
    }
  }

  private async loadPresence(): Promise<void> {
    const heard: Presence[] = [];
    this.heardMeanwhile = heard;
    try {
      const listed = await ops.presence.list(this.api);
      this.presence = heard.reduce(applyPresence, listed.items);
      this.presenceListeners.forEach((listener) => listener(this.presence));
    } catch {
      // Kept as it was; the events still come.
    } finally {
      if (this.heardMeanwhile === heard) this.heardMeanwhile = undefined;
    }
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      // A stream silent past three heartbeats is a connection gone half-open: opened again.
      let silent: ReturnType<typeof setTimeout> | undefined;
      const gone = new Promise<{ done: true; value: undefined }>((resolve) => {
        silent = setTimeout(() => resolve({ done: true, value: undefined }), SILENCE_MS);
      });
      const { done, value } = await Promise.race([reader.read(), gone]);
      clearTimeout(silent);
      if (done) {
        void reader.cancel().catch(() => undefined);
        return;
      }
      buffer += decoder.decode(value, { stream: true });
      const { events, rest } = readEvents(buffer);
      buffer = rest;
      for (const event of events) this.dispatch(event);
    }
  }

  private dispatch(event: StreamEvent): void {
    if (event.event === 'change') {
      if (event.id) this.lastId = event.id;
      const change = JSON.parse(event.data) as Change;
      this.changeListeners.forEach((listener) => listener(change));
    } else if (event.event === 'presence') {
      const said = JSON.parse(event.data) as Presence;
      this.heardMeanwhile?.push(said);
      this.presence = applyPresence(this.presence, said);
      this.presenceListeners.forEach((listener) => listener(this.presence));
    }
  }

  private setUp(up: boolean): void {
    if (this.up === up) return;
    this.up = up;
    this.upListeners.forEach((listener) => listener(up));
  }

  onChange(listener: Listener<Change | undefined>): () => void {
    this.start();
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  onPresence(listener: Listener<Presence[]>): () => void {
    this.start();
    this.presenceListeners.add(listener);
    listener(this.presence);
    return () => this.presenceListeners.delete(listener);
  }

  onUp(listener: Listener<boolean>): () => void {
    this.start();
    this.upListeners.add(listener);
    listener(this.up);
    return () => this.upListeners.delete(listener);
  }
}

const streams = new WeakMap<Api, Live>();

/** The window's stream for `api` (opened on first use). */
export function liveFor(api: Api): Live {
  let live = streams.get(api);
  if (!live) {
    live = new Live(api);
    streams.set(api, live);
  }
  return live;
}

/** Everyone in a story now, as this window hears it. */
export function usePresence(api: Api): Presence[] {
  const [presence, setPresence] = useState<Presence[]>([]);
  useEffect(() => liveFor(api).onPresence(setPresence), [api]);
  return presence;
}

/** Whether the change stream is up. */
export function useLive(api: Api): boolean {
  const [up, setUp] = useState(false);
  useEffect(() => liveFor(api).onUp(setUp), [api]);
  return up;
}

/**
 * Calls `run` (as it is at the time) `delayMs` after a change of the record
 * `uuid` arrives, once for changes close together, and when changes may
 * have been missed.
 */
export function useChangeOf(api: Api, uuid: string, run: () => void, delayMs = 0): void {
  const latest = useRef(run);
  latest.current = run;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = liveFor(api).onChange((change) => {
      if (change && change.uuid !== uuid && change.parent !== uuid) return;
      clearTimeout(timer);
      timer = setTimeout(() => latest.current(), delayMs);
    });
    return () => {
      clearTimeout(timer);
      stop();
    };
  }, [api, uuid, delayMs]);
}

/** "Ana Writer is editing", "Ana Writer and Bo Desk are reading", … for a story's people other than `me`. */
export function presenceWords(present: Presence[], me: string): string {
  const others = present.filter((p) => p.user_uuid !== me);
  if (!others.length) return '';
  const editing = others.filter((p) => p.editing).map((p) => p.name);
  const reading = others.filter((p) => !p.editing).map((p) => p.name);
  const names = (list: string[]) => (list.length <= 2 ? list.join(' and ') : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`);
  const said: string[] = [];
  if (editing.length) said.push(`${names(editing)} ${editing.length === 1 ? 'is' : 'are'} editing`);
  if (reading.length) said.push(`${names(reading)} ${reading.length === 1 ? 'is' : 'are'} reading`);
  return said.join('; ');
}

/**
 * Says this window is in the story `uuid` (every 10 s, and at once when the
 * cursor moves to another block or editing starts or stops), and that it
 * left when the story closes.
 */
export function useAnnounce(api: Api, uuid: string, block: string | null, editing: boolean): void {
  const said = { block, editing: editing ? 1 : 0 } as const;
  const latest = useRef(said);
  latest.current = said;
  useEffect(() => {
    const say = () => inOrder(uuid, () => ops.presence.announce(api, uuid, latest.current));
    const timer = setInterval(say, 10_000);
    return () => {
      clearInterval(timer);
      inOrder(uuid, () => ops.presence.leave(api, uuid));
    };
  }, [api, uuid]);
  useEffect(() => {
    inOrder(uuid, () => ops.presence.announce(api, uuid, { block, editing: editing ? 1 : 0 }));
  }, [api, uuid, block, editing]);
}

/** Each story's presence requests, one after another: a story closed and opened again (after a save) leaves before it arrives. */
const queues = new Map<string, Promise<unknown>>();

function inOrder(uuid: string, send: () => Promise<unknown>): void {
  const next = (queues.get(uuid) ?? Promise.resolve()).then(send).catch(() => undefined);
  queues.set(uuid, next);
  void next.then(() => {
    if (queues.get(uuid) === next) queues.delete(uuid);
  });
}

// What a journalist typed in the editor that the service has not yet
// acknowledged, kept in the browser's IndexedDB so that a reload, a crash of
// the tab or an outage of the server costs no words. The editor writes here
// on every change (debounced) and clears a story's entry once a draft or a
// version the service accepted holds it; opening the story reads it back.
//
// Plain IndexedDB rather than idb-keyval: clearing must be "delete only if
// nothing newer was typed meanwhile", a read and a write in one transaction,
// which is a few lines here; the session already keeps its key in IndexedDB
// the same way (src/session.ts), and the UI ships no extra package for it.
// The entries live in their own database so that neither module ever has to
// upgrade the other's.

/** One story's unacknowledged text. */
export interface UnsavedText {
  /** The story's UUID (the key). */
  uuid: string;
  /** The story's version the text was edited on. */
  version: string;
  title: string;
  abstract: string;
  /** The body as HTML and as Draft.js raw content (JSON). */
  html: string;
  raw: string;
  /** Whether the body still waits for the service (a draft or a version holds it once acknowledged). */
  bodyPending: boolean;
  /** Whether the headline or abstract still wait (only a saved version holds them). */
  fieldsPending: boolean;
  /** When it was typed, in milliseconds since the epoch; a later entry always has a larger one. */
  at: number;
}

const DATABASE = 'copydesk-unsaved';
const STORE = 'texts';

function opened(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => {
      if (!request.result.objectStoreNames.contains(STORE)) request.result.createObjectStore(STORE, { keyPath: 'uuid' });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** Runs `work` in one transaction over the store; resolves with what it answered once the transaction is committed. */
async function inStore<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore, answer: (value: T) => void) => void): Promise<T> {
  const db = await opened();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      let value: T;
      work(tx.objectStore(STORE), (v) => {
        value = v;
      });
      tx.oncomplete = () => resolve(value);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error('the browser aborted the write'));
    });
  } finally {
    db.close();
  }
}

/** Keeps `text` as the story's unacknowledged text, replacing what was kept. */
export function keepUnsaved(text: UnsavedText): Promise<void> {
  return inStore<void>('readwrite', (store) => {
    store.put(text);
  });
}

/** The story's unacknowledged text, if any. */
export function readUnsaved(uuid: string): Promise<UnsavedText | undefined> {
  return inStore<UnsavedText | undefined>('readonly', (store, answer) => {
    const read = store.get(uuid);
    read.onsuccess = () => answer(read.result as UnsavedText | undefined);
  });
}

/**
 * The service acknowledged a save of the text kept at `at`: the body (a
 * draft) or everything (a version). Clears what it holds, unless something
 * newer was typed since, which stays as it is for the next save.
 */
export function acknowledge(uuid: string, at: number, what: 'body' | 'all'): Promise<void> {
  return inStore<void>('readwrite', (store) => {
    const read = store.get(uuid);
    read.onsuccess = () => {
      const kept = read.result as UnsavedText | undefined;
      if (!kept || kept.at > at) return;
      if (what === 'all' || !kept.fieldsPending) store.delete(uuid);
      else store.put({ ...kept, bodyPending: false });
    };
  });
}

/** Forgets the story's unacknowledged text (the journalist chose to discard it). */
export function discardUnsaved(uuid: string): Promise<void> {
  return inStore<void>('readwrite', (store) => {
    store.delete(uuid);
  });
}

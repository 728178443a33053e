// The one client of the /v3 service the whole UI codes against: no other
// module calls `fetch`. It branches on the contract's error `code`, never on
// message text, and turns every refusal into words a journalist understands.
// What it sends and receives is typed by the service's own OpenAPI document
// (src/schema.ts, generated from docs/openapi.json by `npm run schema`).

import type { components, paths } from './schema';

type Schemas = components['schemas'];

/** The names `Prefix_Name` of the document's schemas, without the prefix. */
type NamesAfter<Prefix extends string> = { [K in keyof Schemas]: K extends `${Prefix}_${infer Name}` ? Name : never }[keyof Schemas];

/** The names `NameBody` of the document's request bodies, without `Body`. */
type BodyNames = { [K in keyof Schemas]: K extends `${infer Name}Body` ? Name : never }[keyof Schemas];

// The records the UI shows, as the service answers them.
export type ContentItem = Schemas['Content'];
export type Version = Schemas['Version'];
export type Draft = Schemas['Draft'];
export type MergedDraft = Schemas['MergedDraft'];
export type NoteComment = Schemas['NoteComment'];
export type Assignment = Schemas['Assignment'];
export type Author = Schemas['Author'];
export type Tag = Schemas['Tag'];
export type User = Schemas['User'];
export type Container = Schemas['Container'];
export type PrintDocument = Schemas['PrintDocument'];
export type Workflow = Schemas['Workflow'];
export type Issue = Schemas['Issue'];
export type Me = Schemas['Me'];
/** An access action, one of the service's closed list (`CONTENT get`, ...). */
export type Action = Schemas['Action'];
export type SyncStatus = Schemas['SyncStatus'];
export type SyncConflict = Schemas['SyncConflict'];

/** One page of a list (`Page<'Content'>`): its `items` and where it stands (`current` of `last`, `total_items`, `limit`). */
export type Page<Name extends NamesAfter<'Envelope'>> = Schemas[`Envelope_${Name}`];

/** A list the service answers whole, as `items` only (comments, sync conflicts). */
export type Items<Name extends NamesAfter<'Items'>> = Schemas[`Items_${Name}`];

/** A request body (`RequestBody<'Content'>` is what POST and PUT of a content item take). */
export type RequestBody<Name extends BodyNames> = Schemas[`${Name}Body`];

/**
 * A page of `GET /v3/search?type=content`. Written here because the document
 * describes a search hit only as "a content item, an author or a tag, as the
 * search type asks"; asked for content, the hits are content items.
 */
export type ContentSearchPage = Omit<Page<'SearchHit'>, 'items'> & { items: ContentItem[] };

/**
 * An attachment's crops, keyed by preview name (`default`), each of text
 * fields (`crop`, `w`, `h`, `fp-x`, `fp-y`). Written here because the
 * document leaves an attachment's `metadata` open (any JSON).
 */
export type Crops = Record<string, Record<string, string> | undefined>;

/** The body of every refusal (the document gives each operation's 4xx answers this shape). */
type Refusal = paths['/v3/me']['get']['responses'][403]['content']['application/json'];

/**
 * What a refusal's `code` may be: the service's closed list (`ErrorCode`,
 * generated from its document), and the client's own two: the service
 * could not be reached, or answered without a code.
 */
export type RefusalCode = components['schemas']['ErrorCode'] | 'unreachable' | 'unknown';

/** A refusal in the contract's shape: `{"error", "code", "field"?}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: RefusalCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Where the service is and how to prove who we are. */
export interface Connection {
  /** The service's address, without a trailing slash ('' for the page's own origin). */
  base: string;
  /** A valid bearer token (signed anew when the last one runs out). */
  token: () => Promise<string>;
  /** The key was made for this browser by signing in: signing out revokes it on the server. */
  ownKey?: boolean;
}

/** What a request carries besides its path: a body and its media type. */
interface Sent {
  body: BodyInit;
  type: string;
}

export class Api {
  constructor(readonly connection: Connection) {}

  /**
   * Sends one request with a fresh token and answers the service's response
   * when it is a success; a refusal, or a service that cannot be reached,
   * becomes an `ApiError`.
   */
  private async send(method: string, path: string, sent?: Sent): Promise<Response> {
    let response: Response;
    try {
      const headers: Record<string, string> = {
        Authorization: `Bearer ${await this.connection.token()}`,
      };
      if (sent) headers['Content-Type'] = sent.type;
      response = await fetch(`${this.connection.base}${path}`, { method, headers, body: sent?.body });
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new ApiError(0, 'unreachable', 'The Copydesk service cannot be reached.');
    }
    if (!response.ok) {
      const refusal = (await parsed(response)) as Partial<Refusal> | undefined;
      throw new ApiError(response.status, refusal?.code ?? 'unknown', refusal?.error ?? response.statusText, refusal?.field ?? undefined);
    }
    return response;
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const sent = body === undefined ? undefined : { body: JSON.stringify(body), type: 'application/json' };
    return (await parsed(await this.send(method, path, sent))) as T;
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }
  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.call<T>('POST', path, body);
  }
  put<T>(path: string, body: unknown = {}): Promise<T> {
    return this.call<T>('PUT', path, body);
  }
  /**
   * Opens the Server-Sent Events stream at `path`, resuming after
   * `lastEventId`: the response, to be read as it comes (an EventSource
   * cannot send the bearer token).
   */
  async stream(path: string, lastEventId?: string): Promise<Response> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${await this.connection.token()}`,
      Accept: 'text/event-stream',
    };
    if (lastEventId) headers['Last-Event-ID'] = lastEventId;
    return fetch(`${this.connection.base}${path}`, { headers });
  }

  delete<T>(path: string): Promise<T> {
    return this.call<T>('DELETE', path);
  }

  /** Puts a file on a media item as its attachment, streamed as it is, not base64 (`PUT /v3/attachment/{uuid}/file`). */
  async uploadAttachment(uuid: string, file: File): Promise<ContentItem> {
    const response = await this.send('PUT', `/v3/attachment/${uuid}/file${query({ name: file.name })}`, {
      body: file,
      type: 'application/octet-stream',
    });
    return (await parsed(response)) as ContentItem;
  }

  /** A story's export to print as a file: `icml`, `html` or `text` (`GET /v3/export/{uuid}/as/{format}`). */
  async exportFile(uuid: string, format: string): Promise<Blob> {
    return (await this.send('GET', `/v3/export/${uuid}/as/${format}`)).blob();
  }
}

/** A response's JSON, or `undefined` when it has none (or what it has is not JSON). */
async function parsed(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** A refusal (or any failure) in words for the person at the keyboard. */
export function explain(err: unknown): string {
  if (!(err instanceof ApiError)) {
    return `Something went wrong: ${err instanceof Error ? err.message : String(err)}`;
  }
  switch (err.code) {
    case 'forbidden_action':
      // The message names the missing permission (the access action).
      return `You are not allowed to do this. ${err.message} Ask an editor or an administrator for the permission.`;
    case 'token_missing':
    case 'token_invalid':
    case 'token_expired':
      return 'Your sign-in is missing, not valid or has expired. Sign in again (Settings).';
    case 'locked':
      return `Someone else is working on this right now. ${err.message}`;
    case 'conflict':
      return `That clashes with what is already there. ${err.message}`;
    case 'not_found':
      return `It is not there any more (perhaps someone deleted it). ${err.message}`;
    case 'invalid_request':
      return err.field ? `Please check “${err.field}”: ${err.message}` : `Please check what you entered: ${err.message}`;
    case 'too_large':
      return `That is too large for the server. ${err.message}`;
    case 'too_many_requests':
      return `The server is busy with other uploads. Try again in a few seconds. ${err.message}`;
    case 'timeout':
      return 'The upload stalled and the server gave up waiting. Check the connection and send it again.';
    case 'database_damaged':
      return "The server's database is damaged, so it takes no changes now. Tell the newsroom's administrator; your text stays here.";
    case 'database_unavailable':
      return "The newsroom's server cannot reach its database just now. Try again in a few seconds; your text stays here.";
    case 'unsupported_media_type':
      return 'That kind of file cannot be sent here.';
    case 'offline':
      return `This needs the newsroom's server, which cannot be reached now. ${err.message}`;
    case 'unreachable':
      return 'The Copydesk service cannot be reached. Is it running?';
    default:
      return err.message || `The service refused (${err.status}).`;
  }
}

/** Whether the service refused the token itself (not what it asked for). */
export function isTokenRefusal(err: unknown): boolean {
  return err instanceof ApiError && ['token_missing', 'token_invalid', 'token_expired'].includes(err.code);
}

/** Query strings from pairs (empty values left out). */
export function query(params: Record<string, string | number | undefined>): string {
  const pairs = Object.entries(params).filter(([, v]) => v !== undefined && v !== '');
  return pairs.length ? `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')}` : '';
}

/** A synced record as a person calls it (sync screen). */
export type RecordLabel = Schemas['RecordLabel'];

/** What signing in answers: a new key pair for this browser, and its user. */
export type SignedIn = Schemas['SignedIn'];

/** What signing out answers: the public key it revoked. */
export type SignedOut = Schemas['SignedOut'];

/** What signing in takes: a name and password, or a sign-in link's token. */
export type SignInBody = Schemas['SignIn'];

/**
 * Signs in with a name and password or a one-time link (`POST /v3/sign-in`,
 * no token needed); the answer's key pair is this browser's own. A refusal
 * is an `ApiError` whose message says why in words (`sign_in_refused`,
 * `too_many_requests`).
 */
export async function signIn(base: string, body: SignInBody): Promise<SignedIn> {
  let response: Response;
  try {
    response = await fetch(`${base}/v3/sign-in`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'unreachable', 'The Copydesk service cannot be reached.');
  }
  const answer = await parsed(response);
  if (!response.ok) {
    const refusal = answer as Partial<Refusal> | undefined;
    throw new ApiError(response.status, refusal?.code ?? 'unknown', refusal?.error ?? response.statusText, refusal?.field ?? undefined);
  }
  return answer as SignedIn;
}

/** A sign-in refusal in words: the server's own for a wrong password, a spent link or too many tries. */
export function explainSignIn(err: unknown): string {
  if (err instanceof ApiError && ['sign_in_refused', 'too_many_requests'].includes(err.code)) return err.message;
  return explain(err);
}

/**
 * The client for a browser signed in with a key: the same calls, and when
 * the service refuses the key itself (it was revoked, or the user is gone)
 * `refused` is told, so the person is sent back to sign in.
 */
export class SignedInApi extends Api {
  constructor(
    connection: Connection,
    private readonly refused: (err: ApiError) => void,
  ) {
    super(connection);
  }

  private watch<T>(work: Promise<T>): Promise<T> {
    return work.catch((err: unknown) => {
      if (isTokenRefusal(err)) this.refused(err as ApiError);
      throw err;
    });
  }

  override call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.watch(super.call<T>(method, path, body));
  }

  override uploadAttachment(uuid: string, file: File): Promise<ContentItem> {
    return this.watch(super.uploadAttachment(uuid, file));
  }

  override exportFile(uuid: string, format: string): Promise<Blob> {
    return this.watch(super.exportFile(uuid, format));
  }
}

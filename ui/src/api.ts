// The one client of the /v3 service the whole UI codes against. It branches
// on the contract's error `code`, never on message text, and turns every
// refusal into words a journalist understands.

/** A refusal in the contract's shape: `{"error", "code", "field"?}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
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
}

/** One page of a list, as the service answers it. */
export interface Page<T> {
  items: T[];
  total_items: number;
  page: number;
  last: number;
  per_page: number;
}

export class Api {
  constructor(readonly connection: Connection) {}

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      const headers: Record<string, string> = {
        Authorization: `Bearer ${await this.connection.token()}`,
      };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      response = await fetch(`${this.connection.base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new ApiError(0, 'unreachable', 'The Copydesk service cannot be reached.');
    }
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const error = (parsed ?? {}) as { error?: string; code?: string; field?: string };
      throw new ApiError(response.status, error.code ?? 'unknown', error.error ?? response.statusText, error.field);
    }
    return parsed as T;
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
  delete<T>(path: string): Promise<T> {
    return this.call<T>('DELETE', path);
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

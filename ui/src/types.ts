// The records the UI shows, as the /v3 service answers them (the fields it uses).

export interface Named {
  uuid: string;
  name: string;
}

export interface LockRequest {
  uuid: string;
  srn: string;
  created_at: string;
  user?: { uuid: string; name: string } | null;
}

export interface Attachment {
  uuid: string;
  base_name: string;
  extension: string;
  type: string;
  width: string;
  height: string;
  angle: string;
  metadata: Record<string, Record<string, string>> | null;
  public_url: string;
  original_url: string;
}

export interface ContentItem {
  uuid: string;
  srn: string;
  title: string;
  slug: string;
  type: string;
  version: string;
  abstract: string;
  content: string;
  content_raw: string;
  published_at: string | null;
  modified_at: string;
  authors: { uuid: string; name: string }[];
  tags: { uuid: string; name: string }[];
  urls: { url: string }[];
  lock: boolean;
  lock_request?: LockRequest | null;
  attachment: Attachment | null;
  /** The item's planning assignment, by its numeric id. */
  assignment_id: string | null;
  /** Who did what to the item, oldest first (`merged`: sync merged the server's changes with edits made here). */
  audit: { action: string; detail: string; created_at: string }[];
}

export interface Version {
  uuid: string;
  version: string;
  title: string;
  content: string;
  modified_at: string;
}

export interface Draft {
  uuid: string;
  content: string;
  content_raw: string;
  version: string;
  created_at: string;
}

/** A draft of an older version merged onto the current one (`GET /v3/draft/merged`). */
export interface MergedDraft {
  draft: Draft;
  version: string;
  content: string;
  content_raw: string;
  conflicts: { position: string; mine: string; theirs: string; before: string | null; after: string | null }[];
}

export interface NoteComment {
  id: string;
  uuid: string;
  reference: string;
  comment: string;
  parent_id: string;
  created_at: string;
  user?: { name: string } | null;
}

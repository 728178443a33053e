// The service's operations the screens call, one named function each, so
// that no screen builds a URL or names an answer's type: the path, its
// query, the body's type and the answer's type are written here once,
// against the types generated from the service's OpenAPI document.

import {
  query,
  type Api,
  type Assignment,
  type Author,
  type Container,
  type ContentItem,
  type Draft,
  type Items,
  type MergedDraft,
  type Page,
  type RequestBody,
  type SyncStatus,
  type Tag,
} from './api';

/** A list's query parameters, as `query()` writes them. */
type Params = Record<string, string | number | undefined>;

export const content = {
  /** `GET /v3/content/{uuid}` */
  get: (api: Api, uuid: string) => api.get<ContentItem>(`/v3/content/${uuid}`),
  /** `GET /v3/content/{uuid}/notes`: the story's in-content notes, those no longer on its words too. */
  notes: (api: Api, uuid: string) => api.get<Items<'StoryNote'>>(`/v3/content/${uuid}/notes`),
  /** `GET /v3/content` */
  list: (api: Api, params: Params) => api.get<Page<'Content'>>(`/v3/content${query(params)}`),
  /** `POST /v3/content` */
  create: (api: Api, body: RequestBody<'Content'>) => api.post<ContentItem>('/v3/content', body),
  /** `PUT /v3/content/{uuid}` */
  update: (api: Api, uuid: string, change: RequestBody<'Content'>) => api.put<ContentItem>(`/v3/content/${uuid}`, change),
};

export const drafts = {
  /** `GET /v3/draft?content=` (the caller's last draft of the item, or none) */
  last: (api: Api, srn: string) => api.get<Draft[]>(`/v3/draft${query({ content: srn })}`),
  /** `GET /v3/draft/merged?content=` */
  merged: (api: Api, srn: string) => api.get<MergedDraft>(`/v3/draft/merged${query({ content: srn })}`),
  /** `GET /v3/draft/others?content=` */
  others: (api: Api, srn: string) => api.get<Draft[]>(`/v3/draft/others${query({ content: srn })}`),
  /** `POST /v3/draft?content=` */
  save: (api: Api, srn: string, body: RequestBody<'Draft'>) => api.post(`/v3/draft${query({ content: srn })}`, body),
};

export const versions = {
  /** `GET /v3/version?content=` */
  list: (api: Api, params: Params) => api.get<Page<'Version'>>(`/v3/version${query(params)}`),
  /** `PUT /v3/version/{uuid}`: restores it as a new version. */
  restore: (api: Api, uuid: string) => api.put(`/v3/version/${uuid}`),
};

export const attachments = {
  /** `PUT /v3/attachment/{uuid}`: turns the preview or sets its crops. */
  update: (api: Api, uuid: string, change: RequestBody<'Attachment'>) => api.put(`/v3/attachment/${uuid}`, change),
};

export const authors = {
  /** `POST /v3/author` */
  create: (api: Api, body: RequestBody<'Author'>) => api.post<Author[]>('/v3/author', body),
};

export const tags = {
  /** `POST /v3/tag` */
  create: (api: Api, body: RequestBody<'Tag'>) => api.post<Tag[]>('/v3/tag', body),
};

export const containers = {
  /** `GET /v3/container/{uuid}` */
  get: (api: Api, uuid: string) => api.get<Container[]>(`/v3/container/${uuid}`),
  /** `GET /v3/container` */
  list: (api: Api, params: Params) => api.get<Page<'Container'>>(`/v3/container${query(params)}`),
  /** `POST /v3/container` */
  create: (api: Api, body: RequestBody<'Container'>) => api.post('/v3/container', body),
  /** `PUT /v3/container/{uuid}` */
  update: (api: Api, uuid: string, body: RequestBody<'Container'>) => api.put(`/v3/container/${uuid}`, body),
};

export const locks = {
  /** `POST /v3/lock-request` */
  take: (api: Api, srn: string) => api.post('/v3/lock-request', { srn }),
  /** `DELETE /v3/lock-request/{uuid}` */
  release: (api: Api, uuid: string) => api.delete(`/v3/lock-request/${uuid}`),
};

export const comments = {
  /** `GET /v3/note-comment/{uuid}`: an item's thread. */
  thread: (api: Api, uuid: string) => api.get<Items<'NoteComment'>>(`/v3/note-comment/${uuid}`),
  /** `POST /v3/note-comment/{uuid}`: a comment on an item, or a reply to a comment. */
  add: (api: Api, parent: string, body: RequestBody<'NoteComment'>) => api.post(`/v3/note-comment/${parent}`, body),
};

export const changes = {
  /** `GET /v3/changes/stream`: the change feed as events, resumed after `lastEventId`. */
  stream: (api: Api, lastEventId?: string) => api.stream('/v3/changes/stream', lastEventId),
};

export const presence = {
  /** `GET /v3/presence`: everyone in a story now. */
  list: (api: Api) => api.get<Items<'Presence'>>('/v3/presence'),
  /** `PUT /v3/presence/{uuid}`: the caller is in the story, in a block, editing or reading. */
  announce: (api: Api, uuid: string, body: RequestBody<'Presence'>) => api.put<Items<'Presence'>>(`/v3/presence/${uuid}`, body),
  /** `DELETE /v3/presence/{uuid}`: the caller left the story. */
  leave: (api: Api, uuid: string) => api.delete(`/v3/presence/${uuid}`),
};

export const assignments = {
  /** `GET /v3/assignment/{id or uuid}` */
  get: (api: Api, id: string) => api.get<Assignment[]>(`/v3/assignment/${id}`),
  /** `GET /v3/assignment-comment/{uuid}` */
  comments: (api: Api, uuid: string) => api.get<Items<'AssignmentComment'>>(`/v3/assignment-comment/${uuid}`),
  /** `POST /v3/assignment-comment/{uuid}` */
  comment: (api: Api, uuid: string, body: RequestBody<'AssignmentComment'>) => api.post(`/v3/assignment-comment/${uuid}`, body),
};

export const print = {
  /** `GET /v3/print-document` */
  documents: (api: Api) => api.get<Page<'PrintDocument'>>('/v3/print-document?per_page=100'),
  /** `POST /v3/print-document` */
  createDocument: (api: Api, body: RequestBody<'PrintDocument'>) => api.post('/v3/print-document', body),
  /** `POST /v3/print-document/{uuid}/lock`, for the caller or on behalf of someone. */
  lockDocument: (api: Api, uuid: string, body: RequestBody<'PrintLock'> = {}) => api.post(`/v3/print-document/${uuid}/lock`, body),
  /** `DELETE /v3/print-document/{uuid}/lock` */
  unlockDocument: (api: Api, uuid: string) => api.delete(`/v3/print-document/${uuid}/lock`),
  /** `GET /v3/workflow` */
  workflows: (api: Api) => api.get<Page<'Workflow'>>('/v3/workflow?per_page=200'),
  /** `GET /v3/issue` */
  issues: (api: Api) => api.get<Page<'Issue'>>('/v3/issue?per_page=200'),
  /** `GET /v3/user` */
  users: (api: Api) => api.get<Page<'User'>>('/v3/user?per_page=200'),
  /** `GET /v3/export/{uuid}` */
  export: (api: Api, uuid: string) => api.get<ContentItem>(`/v3/export/${uuid}`),
  /** `PUT /v3/export/{uuid}` */
  updateExport: (api: Api, uuid: string, body: RequestBody<'Export'>) => api.put(`/v3/export/${uuid}`, body),
  /** `PUT /v3/export/lock/{uuid}`: the print notice set. */
  setNotice: (api: Api, uuid: string) => api.put(`/v3/export/lock/${uuid}`),
  /** `DELETE /v3/export/lock/{uuid}`: the print notice cleared. */
  clearNotice: (api: Api, uuid: string) => api.delete(`/v3/export/lock/${uuid}`),
  /** `PUT /v3/export/push/{uuid}` */
  push: (api: Api, uuid: string) => api.put(`/v3/export/push/${uuid}`),
  /** `PUT /v3/export/pull/{uuid}` */
  pull: (api: Api, uuid: string) => api.put(`/v3/export/pull/${uuid}`),
};

export const sync = {
  /** `GET /v3/sync/status` */
  status: (api: Api) => api.get<SyncStatus>('/v3/sync/status'),
  /** `GET /v3/sync/conflicts` */
  conflicts: (api: Api) => api.get<Items<'SyncConflict'>>('/v3/sync/conflicts'),
  /** `GET /v3/sync/attention` */
  attention: (api: Api) => api.get<Items<'NeedsAttention'>>('/v3/sync/attention'),
  /** `GET /v3/sync/waiting` */
  waiting: (api: Api) => api.get<Items<'WaitingChange'>>('/v3/sync/waiting'),
  /** `POST /v3/sync/conflicts/{uuid}/resolve` */
  resolve: (api: Api, uuid: string, body: RequestBody<'Resolve'>) => api.post(`/v3/sync/conflicts/${uuid}/resolve`, body),
};

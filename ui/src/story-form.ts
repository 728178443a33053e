// The story's form as the editor and its drafts hold it: the fields besides
// the body, read from a story or a draft and written into a draft. No DOM:
// Vitest reads it directly.

import type { ContentItem } from './api';
import type { components } from './schema';

type DraftFields = components['schemas']['DraftFields'];

/** The form's fields as a draft holds them. */
export interface Form {
  title: string;
  abstract: string;
  slug: string;
  authors: string[];
  tags: string[];
  urls: string;
  published: boolean;
  lead: string | null;
}

/** The story's own form, as the service holds it. */
export function formOf(item: ContentItem): Form {
  return {
    title: item.title,
    abstract: item.abstract,
    slug: item.slug,
    authors: item.authors.map((a) => a.uuid),
    tags: item.tags.map((t) => t.uuid),
    urls: item.urls.map((u) => u.url).join('\n'),
    published: Boolean(item.published_at),
    lead: item.dominantAttachment?.uuid ?? null,
  };
}

/** The form a draft restores: what it holds over the story's own. */
export function formFrom(item: ContentItem, held?: DraftFields): Form {
  const form = formOf(item);
  if (!held) return form;
  return {
    title: held.title ?? form.title,
    abstract: held.abstract ?? form.abstract,
    slug: held.slug ?? form.slug,
    authors: held.authors ?? form.authors,
    tags: held.tags ?? form.tags,
    urls: held.urls ? held.urls.join('\n') : form.urls,
    published: held.published ?? form.published,
    lead: held.dominantAttachment === undefined ? form.lead : held.dominantAttachment,
  };
}

/**
 * The form as a draft sends it. URLs and the Published box go only when
 * changed from the story as it opened: versions keep neither, so a merged
 * draft could not tell a change of them from a stale copy.
 */
export function draftFields(form: Form, opened: Form): DraftFields {
  const fields: DraftFields = {
    title: form.title,
    abstract: form.abstract,
    slug: form.slug,
    authors: form.authors,
    tags: form.tags,
    dominantAttachment: form.lead,
  };
  if (form.urls !== opened.urls) fields.urls = urlList(form.urls);
  if (form.published !== opened.published) fields.published = form.published;
  return fields;
}

export function urlList(urls: string): string[] {
  return urls
    .split('\n')
    .map((u) => u.trim())
    .filter(Boolean);
}

export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

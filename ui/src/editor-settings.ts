// What the news editor counts and warns about: words and characters, and how
// long a headline may be for each content type. The limits are the desk's
// habits, not the service's (it stores any length): past one the editor
// warns, and still saves.

/**
 * Headline length limits in characters, per content type: a headline past
 * its limit no longer fits the site's teasers and the print desk's
 * one-line slots. Change them here (README: "The story editor").
 */
export const HEADLINE_LIMITS: Readonly<Record<string, number>> = {
  article: 110,
  post: 110,
  page: 110,
  media: 200,
};

/** The limit of a type this list does not name. */
export const DEFAULT_HEADLINE_LIMIT = 110;

/** The share of the limit from which the editor warns that the headline is getting long. */
export const HEADLINE_WARN_FROM = 0.9;

export function headlineLimit(type: string): number {
  return HEADLINE_LIMITS[type] ?? DEFAULT_HEADLINE_LIMIT;
}

/** Characters as a reader counts them (an emoji is one), not UTF-16 units. */
export function characters(text: string): number {
  return [...text].length;
}

/** Words: runs of letters, digits and the like between spaces. */
export function words(text: string): number {
  return text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

export type HeadlineState = 'fits' | 'near' | 'over';

export function headlineState(title: string, type: string): HeadlineState {
  const length = characters(title);
  const limit = headlineLimit(type);
  if (length > limit) return 'over';
  if (length >= Math.ceil(limit * HEADLINE_WARN_FROM)) return 'near';
  return 'fits';
}

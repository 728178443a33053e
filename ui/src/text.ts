// Text from stored HTML, read without running or loading anything it holds.

/** The visible text of `html`: parsed in an inert document (no scripts run, no images load). */
export function textOf(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  doc.querySelectorAll('p, li, h1, h2, h3, h4, h5, h6, blockquote, br').forEach((el) => {
    el.append(el.tagName === 'BR' ? '\n' : '\n\n');
  });
  return (doc.body.textContent ?? '').replace(/\n{3,}/g, '\n\n').trim();
}

/** HTML holding `text` as text: what a person typed is never read as markup. */
export function paragraphsOf(text: string): string {
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return text
    .split(/\n{2,}/)
    .map((p) => `<p>${escape(p).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

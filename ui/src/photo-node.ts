// A photo placed in a story's body: TipTap's own image node, as a block of
// its own, stored as `<figure><img src alt></figure>` (what draft-convert
// writes for Draft.js's atomic image block). The editor shows it with its
// caption (the `alt`) under it; an image whose address is not one the server
// keeps (a file of this service, or https) is not taken in from pasted HTML.

import { Image, type ImageOptions } from '@tiptap/extension-image';

/** A photo as it is placed: its address and its caption (the image's `alt`). */
export interface Photo {
  src: string;
  alt: string;
}

/**
 * Whether `src` may stand in the body: a file of this service
 * (`/files/<salt>/<name>`, an attachment's `public_url`) or an https
 * address. The server's sanitiser (`safe_image_src`) holds the same rule.
 */
export function safeImageSrc(src: string | null | undefined): src is string {
  if (!src || src.length > 2048 || src.includes('..') || /[\s\\"<>\p{Cc}]/u.test(src)) return false;
  if (src.startsWith('/files/')) return /^\/files\/[A-Za-z0-9/._-]+$/.test(src);
  return /^https:\/\/./i.test(src);
}

/** Where the editor loads a photo from: a path of this service against the service's address. */
export function shownSrc(src: string, base: string): string {
  return src.startsWith('/files/') ? `${base}${src}` : src;
}

export interface BodyPhotoOptions {
  /** The service's address ('' for the page's own origin), for showing `/files/…` paths. */
  base: string;
}

export const BodyPhoto = Image.extend<BodyPhotoOptions & ImageOptions>({
  addOptions() {
    return { ...this.parent!(), inline: false, allowBase64: false, base: '' };
  },

  parseHTML() {
    return [{ tag: 'img[src]', getAttrs: (element) => (safeImageSrc((element as HTMLElement).getAttribute('src')) ? null : false) }];
  },

  renderHTML({ HTMLAttributes }) {
    const { src, alt } = HTMLAttributes as { src?: string; alt?: string };
    return ['figure', ['img', { src, alt: alt ?? '' }]];
  },

  // No Markdown `![alt](src)` typed into the body becomes an image.
  addInputRules() {
    return [];
  },

  addNodeView() {
    const base = this.options.base;
    return ({ node }) => {
      const figure = document.createElement('figure');
      figure.className = 'body-photo';
      const img = document.createElement('img');
      const caption = document.createElement('figcaption');
      figure.append(img, caption);
      const show = (attrs: Record<string, unknown>) => {
        const src = String(attrs.src ?? '');
        const alt = String(attrs.alt ?? '');
        img.src = shownSrc(src, base);
        img.alt = alt;
        // The alt already says it to a screen reader: the caption is for the eye.
        caption.textContent = alt;
        caption.setAttribute('aria-hidden', 'true');
      };
      show(node.attrs);
      return {
        dom: figure,
        update: (next) => {
          if (next.type !== node.type) return false;
          show(next.attrs);
          return true;
        },
      };
    };
  },
});

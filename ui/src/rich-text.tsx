// The rich-text editor (TipTap, on ProseMirror) with a labelled toolbar.

import { Editor as TipTap } from '@tiptap/core';
import StarterKit from '@tiptap/starter-kit';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PmNode } from './draftjs';

export interface Body {
  html: string;
  doc: PmNode;
}

interface Props {
  /** The body to start from: a document (from a draft) or HTML (from the item). */
  initial: PmNode | string;
  label: string;
  editable: boolean;
  onChange: (body: Body) => void;
}

export function RichText({ initial, label, editable, onChange }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<TipTap | undefined>(undefined);
  const [, setTick] = useState(0);
  const changed = useRef(onChange);
  const baseline = useRef<string | undefined>(undefined);
  changed.current = onChange;

  useEffect(() => {
    const made = new TipTap({
      element: host.current!,
      extensions: [StarterKit.configure({ link: { openOnClick: false, autolink: true }, trailingNode: false })],
      content: initial as never,
      editable,
      editorProps: { attributes: { 'aria-label': label, role: 'textbox', 'aria-multiline': 'true', class: 'body-text' } },
      // Only a real change counts (not the editor settling its first document).
      onUpdate: ({ editor: e }) => {
        const html = e.getHTML();
        if (html === baseline.current) return;
        baseline.current = undefined;
        changed.current({ html, doc: e.getJSON() as PmNode });
      },
      onSelectionUpdate: () => setTick((t) => t + 1),
      onTransaction: () => setTick((t) => t + 1),
    });
    editor.current = made;
    baseline.current = made.getHTML();
    return () => made.destroy();
    // The editor is made once per mount; the screen remounts it for another body.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    editor.current?.setEditable(editable, false);
  }, [editable]);

  const e = editor.current;
  const button = (name: string, active: boolean, run: () => void) => (
    <button type="button" aria-pressed={active} disabled={!editable} onClick={run} key={name}>
      {name}
    </button>
  );
  return (
    <div class="rich-text">
      <div role="toolbar" aria-label={`${label}: formatting`} class="toolbar">
        {e && [
          button('Bold', e.isActive('bold'), () => e.chain().focus().toggleBold().run()),
          button('Italic', e.isActive('italic'), () => e.chain().focus().toggleItalic().run()),
          button('Underline', e.isActive('underline'), () => e.chain().focus().toggleUnderline().run()),
          button('Heading', e.isActive('heading', { level: 2 }), () => e.chain().focus().toggleHeading({ level: 2 }).run()),
          button('Bullet list', e.isActive('bulletList'), () => e.chain().focus().toggleBulletList().run()),
          button('Numbered list', e.isActive('orderedList'), () => e.chain().focus().toggleOrderedList().run()),
          button('Quote', e.isActive('blockquote'), () => e.chain().focus().toggleBlockquote().run()),
          button('Link', e.isActive('link'), () => {
            const href = prompt('Link to (leave empty to remove the link)', String(e.getAttributes('link').href ?? ''));
            if (href === null) return;
            if (href.trim() === '') e.chain().focus().unsetLink().run();
            else e.chain().focus().extendMarkRange('link').setLink({ href: href.trim() }).run();
          }),
        ]}
      </div>
      <div ref={host} />
    </div>
  );
}

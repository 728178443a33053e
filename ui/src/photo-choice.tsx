// Choosing a photo for a story: uploading one (a media item is made for it,
// with the file as its attachment) or picking a media item already in the
// archive by typing words of its title. The lead photo and a photo placed in
// the body both choose this way.

import { useState } from 'preact/hooks';
import { query, type ContentItem, type Page, type RequestBody } from './api';
import { useDesk } from './context';
import { attempt, Problem } from './load';
import { SearchPicker } from './picker';

/** The images a photo may be (what browsers show inline). */
export const IMAGE_TYPES = 'image/jpeg,image/png,image/gif,image/webp';

/** A media item with its file, as a chosen photo comes. */
export type MediaItem = ContentItem & { attachment: NonNullable<ContentItem['attachment']> };

/**
 * Upload a photo (for a person who may create content; the screen says why
 * when not) or pick one from the archive; `onChosen` gets the media item
 * (with its attachment) and does what the photo is for. `titleFor` names
 * the media item an upload makes.
 */
export function PhotoChooser({
  titleFor,
  onChosen,
  using = 'Setting',
}: {
  titleFor: (file: File) => string;
  onChosen: (media: MediaItem) => Promise<unknown> | void;
  /** What the status line says while a picked photo is put in place: “Setting”, “Placing”. */
  using?: string;
}) {
  const { api, may } = useDesk();
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState('');
  const [found, setFound] = useState<ContentItem[]>([]);
  const run = async (what: string, work: () => Promise<unknown>) => {
    setBusy(what);
    const failed = await attempt(work);
    setBusy('');
    setProblem(failed);
  };
  /** The media item with its attachment (a list may leave it out). */
  const withFile = async (media: ContentItem): Promise<MediaItem> => {
    if (media.attachment) return media as MediaItem;
    const read = await api.get<ContentItem | ContentItem[]>(`/v3/content/${media.uuid}`);
    const item = Array.isArray(read) ? read[0] : read;
    if (!item.attachment) throw new Error(`“${media.title}” has no file.`);
    return item as MediaItem;
  };
  return (
    <div class="photo-chooser">
      {may('CONTENT create') ? (
        <label>
          Upload a photo{' '}
          <input
            type="file"
            accept={IMAGE_TYPES}
            disabled={!!busy}
            onChange={(e) => {
              const input = e.currentTarget;
              const file = input.files?.[0];
              if (!file) return;
              void run(`Uploading ${file.name}…`, async () => {
                const made = await api.post<ContentItem | ContentItem[]>('/v3/content', { title: titleFor(file), type: 'media' } satisfies RequestBody<'Content'>);
                const media = Array.isArray(made) ? made[0] : made;
                const uploaded = await api.uploadAttachment(media.uuid, file);
                await onChosen(await withFile(uploaded ?? media));
                input.value = '';
              });
            }}
          />
        </label>
      ) : null}
      <SearchPicker
        label="Pick a photo from the archive"
        placeholder="Type words of its title…"
        search={async (words) => {
          const page = await api.get<Page<'Content'>>(
            `/v3/content${query({ keywords: words, type: 'media', has_attachment: 1, per_page: 20, order: 'modified_at', dir: 'desc' })}`,
          );
          setFound(page.items);
          return page.items.map((media) => ({ uuid: media.uuid, name: media.title }));
        }}
        onPick={(choice) => {
          const media = found.find((m) => m.uuid === choice.uuid);
          if (media) void run(`${using} ${choice.name}…`, async () => onChosen(await withFile(media)));
        }}
      />
      {busy && <p role="status">{busy}</p>}
      <Problem message={problem} />
    </div>
  );
}

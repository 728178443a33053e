// A story's lead photo (its dominant attachment, as the hosted service calls
// it): shown with its caption, set by uploading a photo from the story (a
// media item is made for it) or by picking a media item already in the
// archive, and taken off again.

import { useState } from 'preact/hooks';
import { query, type ContentItem, type Page, type RequestBody } from '../api';
import { useDesk } from '../context';
import { attempt, Problem } from '../load';
import { MissingPermission } from '../permission';
import { SearchPicker } from '../picker';

/** The images a lead photo may be (what browsers show inline). */
const IMAGE_TYPES = 'image/jpeg,image/png,image/gif,image/webp';

export function LeadPhoto({ item, onChange }: { item: ContentItem; onChange: () => void }) {
  const { api, may } = useDesk();
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState('');
  const lead = item.dominantAttachment;
  const setLead = (media: string | null) =>
    api.put(`/v3/content/${item.uuid}`, { dominantAttachment: media } satisfies RequestBody<'Content'>);
  const run = async (what: string, work: () => Promise<unknown>) => {
    setBusy(what);
    const failed = await attempt(work);
    setBusy('');
    setProblem(failed);
    if (!failed) onChange();
  };
  const mayChange = may('CONTENT update');
  return (
    <section class="panel lead-photo" aria-labelledby="lead-photo-heading">
      <h2 id="lead-photo-heading">Lead photo</h2>
      {lead ? (
        <figure>
          <img src={`${api.connection.base}${lead.attachment.public_url}`} alt={lead.title || lead.attachment.base_name} class="preview" />
          <figcaption>{lead.title}</figcaption>
        </figure>
      ) : (
        <p>This story has no lead photo.</p>
      )}
      {mayChange && (
        <>
          {may('CONTENT create') && (
            <label>
              Upload a photo{' '}
              <input
                type="file"
                accept={IMAGE_TYPES}
                disabled={!!busy}
                onChange={(e) => {
                  const file = e.currentTarget.files?.[0];
                  if (!file) return;
                  void run(`Uploading ${file.name}…`, async () => {
                    const title = item.title ? `Photo: ${item.title}` : file.name;
                    const made = await api.post<ContentItem | ContentItem[]>('/v3/content', { title, type: 'media' } satisfies RequestBody<'Content'>);
                    const media = Array.isArray(made) ? made[0] : made;
                    await api.uploadAttachment(media.uuid, file);
                    await setLead(media.uuid);
                  });
                }}
              />
            </label>
          )}
          <MissingPermission action="CONTENT create" doing="Uploading a new photo (it becomes a media item)" />
          <SearchPicker
            label="Pick a photo from the archive"
            placeholder="Type words of its title…"
            search={async (words) =>
              (
                await api.get<Page<'Content'>>(
                  `/v3/content${query({ keywords: words, type: 'media', has_attachment: 1, per_page: 20, order: 'modified_at', dir: 'desc' })}`,
                )
              ).items.map((media) => ({ uuid: media.uuid, name: media.title }))
            }
            onPick={(media) => void run(`Setting ${media.name}…`, () => setLead(media.uuid))}
          />
          {lead && (
            <button type="button" disabled={!!busy} onClick={() => run('Taking the lead photo off…', () => setLead(null))}>
              Take the lead photo off
            </button>
          )}
        </>
      )}
      <MissingPermission action="CONTENT update" doing="Changing the lead photo" />
      {busy && <p role="status">{busy}</p>}
      <Problem message={problem} />
    </section>
  );
}

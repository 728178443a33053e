// A story's lead photo (its dominant attachment, as the hosted service calls
// it): shown with its caption, set by uploading a photo from the story (a
// media item is made for it) or by picking a media item already in the
// archive (the choosing is `PhotoChooser`'s, shared with a photo placed in
// the body), and taken off again.

import { useState } from 'preact/hooks';
import type { ContentItem, RequestBody } from '../api';
import { useDesk } from '../context';
import { attempt, Problem } from '../load';
import { MissingPermission } from '../permission';
import { PhotoChooser } from '../photo-choice';

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
          <MissingPermission action="CONTENT create" doing="Uploading a new photo (it becomes a media item)" />
          <PhotoChooser
            titleFor={(file) => (item.title ? `Photo: ${item.title}` : file.name)}
            onChosen={async (media) => {
              await setLead(media.uuid);
              onChange();
            }}
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

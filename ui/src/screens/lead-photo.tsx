// A story's lead photo (its dominant attachment, as the hosted service calls
// it): shown with its caption, chosen by uploading a photo from the story (a
// media item is made for it) or by picking a media item already in the
// archive (the choosing is `PhotoChooser`'s, shared with a photo placed in
// the body), and taken off again.
//
// The lead photo is part of the story's form like its headline: choosing
// one goes into the writer's draft and is saved with the next version they
// save, never as a version of its own behind their back.

import { useEffect, useState } from 'preact/hooks';
import type { ContentItem } from '../api';
import { useDesk } from '../context';
import { MissingPermission } from '../permission';
import { PhotoChooser, type MediaItem } from '../photo-choice';
import * as ops from '../operations';

/** The lead photo as the story shows it. */
export type Lead = NonNullable<ContentItem['dominantAttachment']>;

/** A chosen media item as a lead photo. */
export function leadOf(media: MediaItem): Lead {
  return { uuid: media.uuid, srn: media.srn, title: media.title, content: media.content, authors: media.authors, attachment: media.attachment };
}

/**
 * The lead photo a draft names by its media item's UUID, read from the
 * service to show it; `null` when the draft took it off or the item is gone.
 */
export function useLeadNamed(uuid: string | null | undefined, known: Lead | null): Lead | null {
  const { api } = useDesk();
  const [lead, setLead] = useState<Lead | null>(known && known.uuid === uuid ? known : null);
  useEffect(() => {
    if (!uuid || (known && known.uuid === uuid)) return;
    let live = true;
    ops.content
      .get(api, uuid)
      .then((media) => {
        if (live && media.attachment) setLead(leadOf(media as MediaItem));
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [uuid]);
  return uuid ? (lead ?? (known && known.uuid === uuid ? known : null)) : null;
}

export function LeadPhoto(props: { item: ContentItem; lead: Lead | null; changed: boolean; editable: boolean; onChoose: (lead: Lead | null) => void }) {
  const { api, may } = useDesk();
  const { lead, item } = props;
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
      {props.changed && (
        <p class="hint" role="status">
          Changed here: it is in your draft, and the story has it once you save a version.
        </p>
      )}
      {mayChange && props.editable && (
        <>
          <MissingPermission action="CONTENT create" doing="Uploading a new photo (it becomes a media item)" />
          <PhotoChooser titleFor={(file) => (item.title ? `Photo: ${item.title}` : file.name)} onChosen={(media) => props.onChoose(leadOf(media))} />
          {lead && (
            <button type="button" onClick={() => props.onChoose(null)}>
              Take the lead photo off
            </button>
          )}
        </>
      )}
      <MissingPermission action="CONTENT update" doing="Changing the lead photo" />
    </section>
  );
}

// A media item's attachment: upload (streamed, not base64), preview, angle and crop.

import { useState } from 'preact/hooks';
import type { ContentItem, Crops, RequestBody } from '../api';
import { useDesk } from '../context';
import { attempt, Problem } from '../load';
import { MissingPermission } from '../permission';
import * as ops from '../operations';

export function AttachmentPanel({ item, onChange }: { item: ContentItem; onChange: () => void }) {
  const { api, may } = useDesk();
  const [problem, setProblem] = useState<string>();
  const attachment = item.attachment;
  const crop = (attachment?.metadata as Crops | null | undefined)?.default ?? {};
  const [w, setW] = useState(crop.w ?? '');
  const [h, setH] = useState(crop.h ?? '');
  const [fx, setFx] = useState(crop['fp-x'] ?? '');
  const [fy, setFy] = useState(crop['fp-y'] ?? '');
  const allowed = may('ATTACHMENT update');

  const upload = async (file: File) => {
    const failed = await attempt(() => api.uploadAttachment(item.uuid, file));
    setProblem(failed);
    if (!failed) onChange();
  };

  return (
    <section aria-labelledby="attachment-heading" class="attachment">
      <h2 id="attachment-heading">Attachment</h2>
      <Problem message={problem} />
      {attachment ? (
        <figure>
          {attachment.type === 'image' ? (
            <img src={`${api.connection.base}${attachment.public_url}`} alt={`Preview of ${attachment.base_name}`} class="preview" />
          ) : (
            <a href={`${api.connection.base}${attachment.original_url}`}>
              {attachment.base_name}.{attachment.extension}
            </a>
          )}
          <figcaption>
            {attachment.base_name}.{attachment.extension} · {attachment.width}×{attachment.height} · turned {attachment.angle}°
          </figcaption>
        </figure>
      ) : (
        <p>No file yet.</p>
      )}
      <MissingPermission action="ATTACHMENT update" doing="Uploading, turning or cropping the file" />
      {allowed && (
        <>
          <label>
            {attachment ? 'Replace the file' : 'Upload a file'}{' '}
            <input type="file" onChange={(e) => e.currentTarget.files?.[0] && void upload(e.currentTarget.files[0])} />
          </label>
          {attachment && (
            <>
              <label>
                Turn the preview{' '}
                <select
                  value={attachment.angle}
                  onChange={async (e) => {
                    const turned = { angle: Number(e.currentTarget.value) } satisfies RequestBody<'Attachment'>;
                    const failed = await attempt(() => ops.attachments.update(api, item.uuid, turned));
                    setProblem(failed);
                    if (!failed) onChange();
                  }}
                >
                  {['0', '90', '180', '270'].map((a) => (
                    <option value={a} key={a}>
                      {a}°
                    </option>
                  ))}
                </select>
              </label>
              <form
                class="toolbar"
                aria-label="Crop"
                onSubmit={async (e) => {
                  e.preventDefault();
                  const cropped = { metadata: { default: { crop: 'true', w, h, 'fp-x': fx, 'fp-y': fy } } satisfies Crops };
                  const failed = await attempt(() => ops.attachments.update(api, item.uuid, cropped));
                  setProblem(failed);
                  if (!failed) onChange();
                }}
              >
                <label>
                  Crop width <input size={5} value={w} onInput={(e) => setW(e.currentTarget.value)} />
                </label>
                <label>
                  height <input size={5} value={h} onInput={(e) => setH(e.currentTarget.value)} />
                </label>
                <label>
                  focus x <input size={5} value={fx} onInput={(e) => setFx(e.currentTarget.value)} />
                </label>
                <label>
                  focus y <input size={5} value={fy} onInput={(e) => setFy(e.currentTarget.value)} />
                </label>
                <button type="submit">Save the crop</button>
              </form>
            </>
          )}
        </>
      )}
    </section>
  );
}

// A lead photo set from the article itself, in a real browser against a real
// copydesk-server: a photo uploaded from the story becomes a media item and
// the story's dominant attachment, shown in the editor.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aDesk, one, shot, signedIn } from './support.mjs';

/** A small real PNG (16 by 12, a colour gradient). */
const PHOTO = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAMCAIAAADkharWAAABVklEQVR42hXRIREFIRhFYSIgCIBEbgAEEf4ICAKsRG4ABBFOBAQBkEgCIIiwEd6+67+ZO3OUUmiFVVyKoBBFVNyKR1EVKJpiKJbiKF6FUgZtsIbLEAxiiIbb8BiqAUMzDMMyHMNrPuDQDuu4HMEhjui4HY+jOnA0x3Asx3G87gMe7bGeyxM84ome2/N4qgdP8wzP8hzP6z8gaMEKlxAEEaJwC49QBYQmDGEJR3jlAwmdsIkrERKSiIk78SRqgkRLjMRKnMSbPpDRGZu5MiEjmZi5M0+mZsi0zMiszMm8+QMFXbCFqxAKUoiFu/AUaoFCK4zCKpzCWz4AGixcEP6fiXDDA5X/GgxYcOD9wqiO7tjO1Qkd6cTO3Xk6tUOndUZndU7n7R+Y6ImdXJMwkUmc3JNnUidM2mRM1uRM3vmBjd7YzbUJG9nEzb15NnXDpm3GZm3O5t38AK0CJJAfjLb6AAAAAElFTkSuQmCC',
  'base64',
);

const desk = aDesk();

describe('the lead photo', () => {
  it('makes a photo uploaded from an article its lead photo', async () => {
    const { srv, admin, browser } = desk;
    const made = await srv.call(admin, 'POST', '/v3/content', { title: 'Harbour strike', type: 'article', content: '<p>Dock workers walk out.</p>' });
    const story = one(made);
    const { context, page } = await signedIn(browser, srv, admin);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    const panel = page.getByRole('region', { name: 'Lead photo' });
    await panel.getByText('This story has no lead photo.').waitFor();
    await panel.getByLabel('Upload a photo').setInputFiles({ name: 'dockers.png', mimeType: 'image/png', buffer: PHOTO });
    const photo = panel.getByRole('img', { name: 'Photo: Harbour strike' });
    await photo.waitFor();
    assert.ok(await photo.evaluate((img) => img.complete && img.naturalWidth > 0), 'the preview loads');
    await shot(page, 'editor-lead-photo');
    const now = await srv.call(admin, 'GET', `/v3/content/${story.uuid}`);
    const read = one(now);
    assert.equal(read.dominantAttachment.title, 'Photo: Harbour strike');
    assert.equal(read.dominantAttachment.attachment.base_name, 'dockers');
    const media = await srv.call(admin, 'GET', `/v3/content/${read.dominantAttachment.uuid}`);
    assert.equal(one(media).type, 'media');
    // And off again.
    await panel.getByRole('button', { name: 'Take the lead photo off' }).click();
    await panel.getByText('This story has no lead photo.').waitFor();
    await context.close();
  });
});

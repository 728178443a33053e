// A lead photo set from the article itself, in a real browser against a real
// copydesk-server: a photo uploaded from the story becomes a media item and,
// once the writer saves, the story's dominant attachment. Until then it is
// part of the writer's draft, like the headline: no version is saved behind
// their back.

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
    // Not a version of its own: the story is still at version 1, and the
    // choice is in the writer's draft until they save.
    await page.locator('.draft-state', { hasText: 'Draft saved' }).waitFor({ timeout: 15_000 });
    const before = one(await srv.call(admin, 'GET', `/v3/content/${story.uuid}`));
    assert.equal(before.version, '1');
    assert.equal(before.dominantAttachment ?? null, null);
    const drafts = await srv.call(admin, 'GET', `/v3/draft?content=${encodeURIComponent(story.srn)}`);
    const chosen = drafts[0].fields.dominantAttachment;
    assert.ok(chosen, 'the draft names the chosen photo');
    // The editor is not frozen by a version it did not save: typing goes on.
    const body = page.getByRole('textbox', { name: 'Body' });
    await body.click();
    await page.keyboard.press('End');
    await page.keyboard.type(' Pickets at the gate.');
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.locator('.story-meta', { hasText: /· version 2$/ }).waitFor();
    const read = one(await srv.call(admin, 'GET', `/v3/content/${story.uuid}`));
    assert.equal(read.dominantAttachment.uuid, chosen);
    assert.equal(read.dominantAttachment.title, 'Photo: Harbour strike');
    assert.equal(read.dominantAttachment.attachment.base_name, 'dockers');
    assert.match(read.content, /Pickets at the gate\./);
    const media = await srv.call(admin, 'GET', `/v3/content/${read.dominantAttachment.uuid}`);
    assert.equal(one(media).type, 'media');
    // And off again, with the next save.
    await panel.getByRole('button', { name: 'Take the lead photo off' }).click();
    await panel.getByText('This story has no lead photo.').waitFor();
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.locator('.story-meta', { hasText: /· version 3$/ }).waitFor();
    assert.equal(one(await srv.call(admin, 'GET', `/v3/content/${story.uuid}`)).dominantAttachment ?? null, null);
    await context.close();
  });
});

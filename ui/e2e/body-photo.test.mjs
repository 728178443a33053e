// A photo placed in a story's body, in a real browser against a real
// copydesk-server: uploaded from the editor's "Insert photo" dialog at the
// cursor, or picked from the archive by typing its title; saved, reloaded,
// and still where it was placed, its file served as an image.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aDesk, one, shot, signedIn, tokenFor } from './support.mjs';

/** A small real PNG (16 by 12, a colour gradient). */
const PHOTO = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAMCAIAAADkharWAAABVklEQVR42hXRIREFIRhFYSIgCIBEbgAEEf4ICAKsRG4ABBFOBAQBkEgCIIiwEd6+67+ZO3OUUmiFVVyKoBBFVNyKR1EVKJpiKJbiKF6FUgZtsIbLEAxiiIbb8BiqAUMzDMMyHMNrPuDQDuu4HMEhjui4HY+jOnA0x3Asx3G87gMe7bGeyxM84ome2/N4qgdP8wzP8hzP6z8gaMEKlxAEEaJwC49QBYQmDGEJR3jlAwmdsIkrERKSiIk78SRqgkRLjMRKnMSbPpDRGZu5MiEjmZi5M0+mZsi0zMiszMm8+QMFXbCFqxAKUoiFu/AUaoFCK4zCKpzCWz4AGixcEP6fiXDDA5X/GgxYcOD9wqiO7tjO1Qkd6cTO3Xk6tUOndUZndU7n7R+Y6ImdXJMwkUmc3JNnUidM2mRM1uRM3vmBjd7YzbUJG9nEzb15NnXDpm3GZm3O5t38AK0CJJAfjLb6AAAAAElFTkSuQmCC',
  'base64',
);

const desk = aDesk();

/** The body's blocks as the page shows them: a paragraph's text, or `[photo: alt]`. */
async function blocksOf(body) {
  return body.evaluate((root) =>
    [...root.children].map((el) => (el.tagName === 'FIGURE' ? `[photo: ${el.querySelector('img')?.alt}]` : el.textContent)),
  );
}

/** Every photo in the body has loaded, and its file is served as an image. */
async function assertPhotosLoad(body, base) {
  const images = body.locator('figure img');
  const count = await images.count();
  assert.ok(count > 0, 'the body has photos');
  for (let i = 0; i < count; i++) {
    const image = images.nth(i);
    await image.evaluate((img) => (img.complete ? null : new Promise((resolve) => img.addEventListener('load', resolve, { once: true }))));
    assert.ok(await image.evaluate((img) => img.complete && img.naturalWidth > 0), 'the photo shows');
    const src = await image.getAttribute('src');
    const response = await fetch(src.startsWith('/') ? `${base}${src}` : src);
    assert.equal(response.status, 200, src);
    assert.match(response.headers.get('content-type') ?? '', /^image\//, src);
  }
}

describe('a photo in the body', () => {
  it('is placed at the cursor by uploading or picking, and stays there through a save and a reload', async () => {
    const { srv, admin, browser } = desk;
    const story = one(
      await srv.call(admin, 'POST', '/v3/content', {
        title: 'Harbour strike',
        type: 'article',
        content: '<p>Dock workers walk out at dawn.</p><p>The port is shut.</p>',
      }),
    );
    // A photo already in the archive, to be picked by its title.
    const archived = one(await srv.call(admin, 'POST', '/v3/content', { title: 'Cranes idle at the container terminal', type: 'media' }));
    const put = await fetch(`${srv.base}/v3/attachment/${archived.uuid}/file?name=cranes.png`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${await tokenFor(admin)}`, 'Content-Type': 'application/octet-stream' },
      body: PHOTO,
    });
    assert.ok(put.ok, `the archive photo uploads: ${put.status}`);

    const { context, page } = await signedIn(browser, srv, admin);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    const body = page.getByRole('textbox', { name: 'Body' });
    await body.getByText('Dock workers walk out at dawn.').waitFor();

    // Upload: the cursor at the end of the first paragraph.
    await body.locator('p').first().click();
    await page.keyboard.press('End');
    await page.getByRole('button', { name: 'Insert photo' }).click();
    const dialog = page.getByRole('dialog', { name: 'Insert a photo' });
    await dialog.getByLabel('Upload a photo').setInputFiles({ name: 'dockers.png', mimeType: 'image/png', buffer: PHOTO });
    await dialog.waitFor({ state: 'detached' });
    await body.locator('figure img').first().waitFor();
    assert.deepEqual(await blocksOf(body), ['Dock workers walk out at dawn.', '[photo: Photo: Harbour strike]', 'The port is shut.']);
    // The cursor is after the photo, not on it: typing keeps the photo.
    await page.keyboard.type('Quay closed. ');
    assert.deepEqual(await blocksOf(body), ['Dock workers walk out at dawn.', '[photo: Photo: Harbour strike]', 'Quay closed. The port is shut.']);

    // Pick: the cursor at the end of the last paragraph.
    await body.locator('p').last().click();
    await page.keyboard.press('End');
    await page.getByRole('button', { name: 'Insert photo' }).click();
    await dialog.getByLabel('Pick a photo from the archive').fill('cranes terminal');
    await dialog.getByRole('list', { name: 'Pick a photo from the archive: matches' }).getByRole('button', { name: 'Cranes idle at the container terminal' }).click();
    await dialog.waitFor({ state: 'detached' });
    await body.locator('figure img').nth(1).waitFor();
    // At the end of the story nothing follows the photo: what is typed makes a paragraph after it.
    await page.keyboard.type('Talks resume on Monday.');
    const placed = [
      'Dock workers walk out at dawn.',
      '[photo: Photo: Harbour strike]',
      'Quay closed. The port is shut.',
      '[photo: Cranes idle at the container terminal]',
      'Talks resume on Monday.',
    ];
    assert.deepEqual(await blocksOf(body), placed);
    await assertPhotosLoad(body, srv.base);

    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.locator('.story-meta', { hasText: /· version 2$/ }).waitFor();

    // The service holds the photos in the body's HTML, in place.
    const saved = one(await srv.call(admin, 'GET', `/v3/content/${story.uuid}`));
    assert.match(
      saved.content,
      /^<p>Dock workers walk out at dawn\.<\/p><figure><img src="\/files\/[^"]+" alt="Photo: Harbour strike"><\/figure><p>Quay closed\. The port is shut\.<\/p><figure><img src="\/files\/[^"]+" alt="Cranes idle at the container terminal"><\/figure><p>Talks resume on Monday\.<\/p>$/,
    );
    const media = one(await srv.call(admin, 'GET', `/v3/content/${archived.uuid}`));
    assert.ok(saved.content.includes(`src="${media.attachment.public_url}"`), 'the picked photo is the archive item’s file');

    // Reloaded, the photos are where they were placed, and they load.
    await page.reload();
    await body.getByText('Dock workers walk out at dawn.').waitFor();
    await body.locator('figure img').nth(1).waitFor();
    assert.deepEqual(await blocksOf(body), placed);
    await assertPhotosLoad(body, srv.base);
    await body.locator('figure').first().scrollIntoViewIfNeeded();
    await shot(page, 'editor-body-photo');
    await context.close();
  });
});

// The desk in a real browser against a real copydesk-server: drafts,
// versions, comments, containers, locks, the print desk.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launch, shot, signedIn, startServer } from './support.mjs';

let srv;
let browser;
let admin;

before(async () => {
  srv = await startServer();
  admin = srv.key('Ada Admin', ['admin']);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  srv?.stop();
});

async function newStory(page, title) {
  await page.getByLabel('New story title').fill(title);
  await page.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('textbox', { name: 'Body' }).waitFor();
}

describe('the story editor', () => {
  it('keeps a draft across a reload', async () => {
    const { context, page } = await signedIn(browser, srv, admin);
    await newStory(page, 'Flood warning');
    const body = page.getByRole('textbox', { name: 'Body' });
    await body.click();
    await page.keyboard.type('Water rises 🌊 at the north bank');
    await page.getByText(/Draft saved at/).waitFor({ timeout: 10000 });
    await shot(page, 'editor-draft');
    await page.reload();
    await page.getByText(/Restored your draft/).waitFor();
    assert.match(await page.getByRole('textbox', { name: 'Body' }).innerText(), /Water rises 🌊 at the north bank/);
    await context.close();
  });

  it('saves a version and restores an earlier one, showing what changed', async () => {
    const { context, page } = await signedIn(browser, srv, admin);
    await newStory(page, 'Council vote');
    const body = page.getByRole('textbox', { name: 'Body' });
    await body.click();
    await page.keyboard.type('The council voted yes.');
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.locator('.story-meta', { hasText: /· version 2$/ }).waitFor();
    await page.getByRole('textbox', { name: 'Body' }).click();
    await page.keyboard.press('End');
    await page.keyboard.type(' Then it voted no.');
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.locator('.story-meta', { hasText: /· version 3$/ }).waitFor();
    assert.doesNotMatch(await page.locator('.draft-state').innerText(), /Unsaved/, 'a fresh version has nothing unsaved');
    // Who saved it, and when to the second, on this computer's clock (the
    // date too when it was not today), with UTC in the tooltip.
    const version2 = page.getByRole('button', { name: /^Version 2 ·/ });
    assert.match(await version2.innerText(), /^Version 2 · saved (\S+ )?\d\d:\d\d:\d\d( [AP]M)? by Ada Admin · Council vote$/);
    assert.match((await version2.locator('time').getAttribute('title')) ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await page.getByRole('button', { name: /^Version 2 ·/ }).click();
    const diff = page.getByLabel('Changes from version 2 to the current text');
    assert.equal(await diff.getByRole('heading', { name: 'Body' }).count(), 1, 'the body changed');
    assert.equal(await diff.getByRole('heading', { name: 'Headline' }).count(), 0, 'the headline did not');
    assert.match(await diff.locator('ins').allInnerTexts().then((t) => t.join(' ')), /voted no/);
    await shot(page, 'editor-versions');
    await page.getByRole('button', { name: 'Restore version 2' }).click();
    await page.locator('.story-meta', { hasText: /· version 4$/ }).waitFor();
    const text = await page.getByRole('textbox', { name: 'Body' }).innerText();
    assert.match(text, /The council voted yes\./);
    assert.doesNotMatch(text, /voted no/);
    await context.close();
  });

  it('adds a new author and tag from the story and saves them on it', async () => {
    const { context, page } = await signedIn(browser, srv, admin);
    await newStory(page, 'Harbour strike');
    const authors = page.getByRole('group', { name: 'Authors' });
    await authors.getByLabel('New author').fill('Maria Lopez');
    await authors.getByRole('button', { name: 'Add author' }).click();
    await authors.getByRole('checkbox', { name: 'Maria Lopez' }).waitFor();
    assert.ok(await authors.getByRole('checkbox', { name: 'Maria Lopez' }).isChecked());
    const tags = page.getByRole('group', { name: 'Tags' });
    // Enter in the field adds the tag; it does not save the story.
    await tags.getByLabel('New tag').fill('Port');
    await tags.getByLabel('New tag').press('Enter');
    await tags.getByRole('checkbox', { name: 'Port' }).waitFor();
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.locator('.story-meta', { hasText: /· version 2$/ }).waitFor();
    const story = await srv.call(admin, 'GET', `/v3/content/${page.url().split('/').pop()}`);
    assert.deepEqual(story.authors.map((a) => a.name), ['Maria Lopez']);
    assert.deepEqual(story.tags.map((t) => t.name), ['Port']);
    await context.close();
  });

  it('holds a comment thread with a reply beside the text', async () => {
    const { context, page } = await signedIn(browser, srv, admin);
    await newStory(page, 'Bridge closed');
    await page.getByLabel('New comment').fill('Who confirmed the closure?');
    await page.getByRole('button', { name: 'Post' }).first().click();
    await page.getByText('Who confirmed the closure?').waitFor();
    await page.getByRole('button', { name: 'Reply' }).click();
    await page.getByLabel(/Reply to/).fill('The city engineer, at 9:40.');
    await page.getByRole('button', { name: 'Post' }).first().click();
    const reply = page.locator('.replies .said', { hasText: 'The city engineer, at 9:40.' });
    await reply.waitFor();
    // The story's planning assignment, with its own comments.
    const story = await srv.call(admin, 'GET', `/v3/content/${page.url().split('/').pop()}`);
    await srv.call(admin, 'POST', '/v3/assignment', { title: 'Cover the bridge closure', content_id: Number(story.id) });
    await page.reload();
    const assignment = page.getByRole('region', { name: 'Assignment: Cover the bridge closure' });
    await assignment.getByLabel('Comment on the assignment').fill('Photographer booked for 11:00.');
    await assignment.getByRole('button', { name: 'Post' }).click();
    await assignment.getByText('Photographer booked for 11:00.').waitFor();
    await shot(page, 'editor-comments');
    await context.close();
  });

  it('shows markup in a comment as text and runs nothing', async () => {
    const { context, page } = await signedIn(browser, srv, admin);
    await newStory(page, 'Hostile comment');
    const uuid = page.url().split('/').pop();
    // One typed in the form, one posted straight to the service.
    const typed = '<img src=x onerror="window.pwned=1"> and <script>window.pwned=2</script>';
    await page.getByLabel('New comment').fill(typed);
    await page.getByRole('button', { name: 'Post' }).first().click();
    await page.locator('.said', { hasText: 'onerror' }).waitFor();
    await srv.call(admin, 'POST', '/v3/note-comment/root', {
      comment: '<p>raw <img src=x onerror="window.pwned=3"><script>window.pwned=4</script> end</p>',
      reference: uuid,
    });
    await page.reload();
    await page.locator('.said', { hasText: 'raw' }).waitFor();
    await page.waitForTimeout(500);
    assert.equal(await page.evaluate(() => window.pwned), undefined);
    assert.equal(await page.locator('.comments img').count(), 0);
    assert.equal(await page.locator('.comments script').count(), 0);
    assert.match(await page.locator('.said').first().innerText(), /<img src=x onerror="window.pwned=1"> and <script>/);
    await shot(page, 'comments-as-text');
    await context.close();
  });
});

describe('a draft and a newer version', () => {
  it('merges a draft of an older version onto the newer one, and saves both', async () => {
    const html = (ps) => ps.map((p) => `<p>${p}</p>`).join('');
    const story = await srv.call(admin, 'POST', '/v3/content', {
      title: 'Harbour dues',
      type: 'article',
      content: html(['The harbour board met.', 'Dues rise in May.', 'Fishers object.']),
    });
    const { context, page } = await signedIn(browser, srv, admin);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    const body = page.getByRole('textbox', { name: 'Body' });
    await body.locator('p').first().click();
    await page.keyboard.press('End');
    await page.keyboard.type(' Dues double.');
    await page.getByText(/Draft saved at/).waitFor({ timeout: 10000 });
    await context.close();

    // Meanwhile the desk saves version 2 with another paragraph changed.
    const desk = srv.key('Desk editor', ['editor']);
    await srv.call(desk, 'PUT', `/v3/content/${story.uuid}`, {
      content: html(['The harbour board met.', 'Dues rise in May.', 'Fishers object loudly.']),
    });

    const again = await signedIn(browser, srv, admin);
    await again.page.goto(`${srv.base}/#/content/${story.uuid}`);
    await again.page.getByText(/was merged with version 2/).waitFor();
    const text = await again.page.getByRole('textbox', { name: 'Body' }).innerText();
    assert.match(text, /The harbour board met\. Dues double\./);
    assert.match(text, /Fishers object loudly\./);
    await again.page.getByRole('button', { name: 'Save as new version' }).click();
    await again.page.locator('.story-meta', { hasText: /· version 3$/ }).waitFor();
    const saved = await srv.call(admin, 'GET', `/v3/content/${story.uuid}`);
    assert.equal(saved.content, html(['The harbour board met. Dues double.', 'Dues rise in May.', 'Fishers object loudly.']));
    await again.context.close();
  });
});

describe('containers', () => {
  it('shows the type rules in the form itself', async () => {
    const { context, page } = await signedIn(browser, srv, admin);
    await srv.call(admin, 'POST', '/v3/tag', { name: 'Weather' });
    await page.getByRole('link', { name: 'Containers' }).click();
    await page.getByRole('button', { name: 'New container' }).click();
    const form = page.getByRole('form', { name: 'New container' });
    const type = form.getByLabel('Type');
    await type.selectOption('manual');
    assert.equal(await form.getByText('Stories, in order').count(), 1);
    assert.equal(await form.getByRole('group', { name: 'Tags' }).count(), 0);
    await type.selectOption('automatic');
    assert.equal(await form.getByText('Stories, in order').count(), 0);
    assert.equal(await form.getByRole('group', { name: 'Tags' }).count(), 1);
    await type.selectOption('gallery');
    assert.equal(await form.getByText('Stories, in order').count(), 1);
    assert.equal(await form.getByRole('group', { name: 'Tags' }).count(), 1);
    assert.match(await form.getByRole('note').innerText(), /placeholder/);
    await form.getByLabel('Title').fill('Storm pictures');
    await form.getByRole('searchbox', { name: 'Add a tag' }).fill('weath');
    await form.getByRole('list', { name: 'Add a tag: matches' }).getByRole('button', { name: 'Weather' }).click();
    assert.ok(await form.getByRole('checkbox', { name: 'Weather' }).isChecked());
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: 'Storm pictures' }).waitFor();
    await shot(page, 'containers');
    await context.close();
    const made = await srv.call(admin, 'GET', '/v3/container?per_page=100');
    const storm = made.items.find((c) => c.title === 'Storm pictures');
    assert.deepEqual(storm.tags.map((t) => t.name), ['Weather']);
  });

  it('finds a tag among 500 and a story by typing, and keeps their order', async () => {
    for (let n = 1; n <= 500; n++) {
      await srv.call(admin, 'POST', '/v3/tag', { name: `Topic ${String(n).padStart(3, '0')}` });
    }
    const story = await srv.call(admin, 'POST', '/v3/content', { title: 'Harbour lights festival', type: 'article' });
    const { context, page } = await signedIn(browser, srv, admin);
    await page.getByRole('link', { name: 'Containers' }).click();
    await page.getByRole('button', { name: 'New container' }).click();
    const form = page.getByRole('form', { name: 'New container' });
    await form.getByLabel('Type').selectOption('gallery');
    await form.getByLabel('Title').fill('Festival pictures');
    // Tag 437 is far past any list a page could hold: typing finds it.
    await form.getByRole('searchbox', { name: 'Add a tag' }).fill('topic 437');
    await form.getByRole('list', { name: 'Add a tag: matches' }).getByRole('button', { name: 'Topic 437' }).click();
    await form.getByRole('searchbox', { name: 'Add a story' }).fill('harbour lights');
    await form.getByRole('list', { name: 'Add a story: matches' }).getByRole('button', { name: /Harbour lights festival/ }).click();
    await form.getByRole('button', { name: 'Take Harbour lights festival out' }).waitFor();
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: 'Festival pictures' }).waitFor();
    await context.close();
    const made = await srv.call(admin, 'GET', '/v3/container?per_page=100');
    const festival = made.items.find((c) => c.title === 'Festival pictures');
    assert.deepEqual(festival.tags.map((t) => t.name), ['Topic 437']);
    const storyUuid = (Array.isArray(story) ? story[0] : story).uuid;
    assert.ok(festival.content.some((c) => c.uuid === storyUuid), JSON.stringify(festival.content));
  });

  it('tells a journalist which permission a container needs', async () => {
    await srv.call(admin, 'POST', '/v3/container', { title: 'Front page', type: 'manual' });
    const journalist = srv.key('Jo Reporter', ['journalist']);
    const { context, page } = await signedIn(browser, srv, journalist);
    await page.getByRole('link', { name: 'Containers' }).click();
    await page.getByText('Creating a container needs the permission “CONTAINER create”').waitFor();
    await page.getByRole('button', { name: 'Front page' }).click();
    const form = page.getByRole('form', { name: 'Edit Front page' });
    await form.getByText(/Saving a container needs the permission “CONTAINER update”/).waitFor();
    assert.ok(await form.getByRole('button', { name: 'Save' }).isDisabled());
    await context.close();
  });
});

describe('locks', () => {
  it('lets one of two users racing for a story have it, and tells the other who', async () => {
    const story = await srv.call(admin, 'POST', '/v3/content', { title: 'Race for the lock', type: 'article' });
    const ann = srv.key('Ann Writer', ['journalist']);
    const bo = srv.key('Bo Writer', ['journalist']);
    const one = await signedIn(browser, srv, ann);
    const two = await signedIn(browser, srv, bo);
    for (const { page } of [one, two]) await page.goto(`${srv.base}/#/content/${story.uuid}`);
    await Promise.all([one, two].map(({ page }) => page.getByRole('button', { name: 'Lock it for me' }).click()));
    // Each hears back: the lock, or a refusal naming who has it.
    for (const { page } of [one, two]) {
      await page.waitForFunction(() =>
        /You have this story locked|Someone else is working on this/.test(document.querySelector('[aria-label="Lock"]')?.textContent ?? ''),
      );
    }
    // Exactly one holds it; both see who.
    for (const { page } of [one, two]) {
      await page.reload();
      await page.getByRole('region', { name: 'Lock' }).getByText(/locked|working on this/).first().waitFor();
    }
    const banners = await Promise.all([one, two].map(({ page }) => page.getByRole('region', { name: 'Lock' }).innerText()));
    const winners = banners.filter((b) => b.includes('You have this story locked'));
    assert.equal(winners.length, 1, banners.join(' | '));
    const loser = banners.find((b) => !b.includes('You have this story locked'));
    assert.match(loser, /(Ann|Bo) Writer is working on this story/);
    const loserPage = banners[0] === loser ? one.page : two.page;
    assert.equal(await loserPage.getByRole('button', { name: 'Save as new version' }).isDisabled(), true);
    await shot(loserPage, 'lock-banner');
    await one.context.close();
    await two.context.close();
  });

  it('lets one of two print-desk editors have a print document', async () => {
    await srv.call(admin, 'POST', '/v3/print-document', { label: 'Page one', tracking_label: 'monday/page-one.indd' });
    const cy = srv.key('Cy Desk', ['printdesk']);
    const di = srv.key('Di Desk', ['printdesk']);
    const one = await signedIn(browser, srv, cy);
    const two = await signedIn(browser, srv, di);
    for (const { page } of [one, two]) {
      await page.getByRole('link', { name: 'Print desk' }).click();
      await page.getByRole('button', { name: 'Lock Page one' }).waitFor();
    }
    await Promise.all([one, two].map(({ page }) => page.getByRole('button', { name: 'Lock Page one' }).click()));
    // Each hears back: the lock is theirs, or a refusal.
    for (const { page } of [one, two]) {
      await page.waitForFunction(() => {
        const row = [...document.querySelectorAll('tr')].find((r) => r.textContent?.includes('Page one'));
        return /Unlock Page one|Someone else is working/.test(row?.textContent ?? '');
      });
    }
    for (const { page } of [one, two]) {
      await page.reload();
      await page.getByRole('row', { name: /Page one/ }).waitFor();
    }
    const unlockButtons = await Promise.all([one, two].map(({ page }) => page.getByRole('button', { name: 'Unlock Page one' }).count()));
    assert.deepEqual(unlockButtons.sort(), [0, 1], 'exactly one holds it');
    await shot(one.page, 'print-desk');
    await one.context.close();
    await two.context.close();
  });

  it('never shows passThruLock buttons to those without it', async () => {
    const doc = await srv.call(admin, 'POST', '/v3/print-document', { label: 'Page two', tracking_label: 'monday/page-two.indd' });
    const holder = srv.key('Ed Desk', ['printdesk']);
    await srv.call(holder, 'POST', `/v3/print-document/${doc[0].uuid}/lock`, {});
    const plain = srv.key('Fay Desk', ['printdesk']);
    const { context, page } = await signedIn(browser, srv, plain);
    await page.getByRole('link', { name: 'Print desk' }).click();
    await page.getByRole('row', { name: /Page two/ }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Force unlock/ }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Lock for them' }).count(), 0);
    await context.close();
    // An admin holds passThruLock and sees both.
    const boss = await signedIn(browser, srv, admin);
    await boss.page.getByRole('link', { name: 'Print desk' }).click();
    await boss.page.getByRole('button', { name: 'Force unlock Page two' }).waitFor();
    assert.ok((await boss.page.getByRole('button', { name: 'Lock for them' }).count()) > 0);
    await boss.page.getByRole('button', { name: 'Force unlock Page two' }).click();
    await boss.page.getByRole('button', { name: 'Lock Page two' }).waitFor();
    await boss.context.close();
  });
});

describe('the signed-in key', () => {
  /** What the page's own scripts can see of the key: storage text, and the kept CryptoKey. */
  const inspect = (page) =>
    page.evaluate(async () => {
      const texts = [];
      for (const storage of [sessionStorage, localStorage]) {
        for (let i = 0; i < storage.length; i++) texts.push(`${storage.key(i)}=${storage.getItem(storage.key(i))}`);
      }
      const kept = await new Promise((resolve, reject) => {
        const opening = indexedDB.open('copydesk');
        opening.onerror = () => reject(opening.error);
        opening.onsuccess = () => {
          const db = opening.result;
          if (!db.objectStoreNames.contains('keys')) return resolve(undefined);
          const read = db.transaction('keys').objectStore('keys').get('signed-in');
          read.onsuccess = () => resolve(read.result);
          read.onerror = () => reject(read.error);
        };
      });
      let exported = 'no key';
      if (kept?.key) {
        exported = await crypto.subtle.exportKey('raw', kept.key).then(
          () => 'exported',
          (err) => `refused: ${err.name}`,
        );
      }
      return {
        texts: texts.join('\n'),
        isCryptoKey: kept?.key instanceof CryptoKey,
        extractable: kept?.key?.extractable,
        exported,
        keptText: JSON.stringify(kept ?? null),
      };
    });

  it('keeps the key where no script on the page can read it out, and stays signed in', async () => {
    const reporter = srv.key('Kim Reporter', ['journalist']);
    const { context, page } = await signedIn(browser, srv, reporter);
    const seen = await inspect(page);
    assert.ok(!seen.texts.includes(reporter.private_key), 'no storage holds the private key as text');
    assert.ok(!seen.keptText.includes(reporter.private_key), 'the kept record holds no key text');
    assert.equal(seen.isCryptoKey, true, 'a CryptoKey is kept');
    assert.equal(seen.extractable, false);
    assert.match(seen.exported, /^refused/, 'the key cannot be exported');

    // A reload signs the requests with the kept key.
    await page.reload();
    await page.getByRole('heading', { name: 'Content' }).waitFor();

    // Signing out deletes it.
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Your key').waitFor();
    assert.equal((await inspect(page)).exported, 'no key');
    await page.reload();
    await page.getByLabel('Your key').waitFor();
    await context.close();
  });

  it('takes over a key an earlier version left as text in sessionStorage, and removes the text', async () => {
    const editor = srv.key('Lou Editor', ['journalist']);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
    await page.goto(`${srv.base}/`);
    await page.getByLabel('Your key').waitFor();
    // What the earlier version kept: the whole key pair as text.
    await page.evaluate((text) => sessionStorage.setItem('copydesk.key', text), JSON.stringify(editor));
    await page.reload();
    await page.getByRole('heading', { name: 'Content' }).waitFor();
    const seen = await inspect(page);
    assert.ok(!seen.texts.includes(editor.private_key), 'the old text is gone from storage');
    assert.equal(seen.isCryptoKey, true, 'a CryptoKey is kept instead');
    assert.equal(seen.extractable, false);
    assert.match(seen.exported, /^refused/);
    // Signed in from IndexedDB alone from now on.
    await page.reload();
    await page.getByRole('heading', { name: 'Content' }).waitFor();
    await context.close();
  });

  it('never runs an uploaded page or drawing on the desk origin', async () => {
    const { context, page } = await signedIn(browser, srv, admin);
    const payload = "<script>localStorage.setItem('ran', document.domain)</script>";
    const files = [
      ['trap.html', `<html><body>${payload}</body></html>`],
      ['trap.svg', `<svg xmlns="http://www.w3.org/2000/svg">${payload}</svg>`],
    ];
    for (const [name, text] of files) {
      const item = await srv.call(admin, 'POST', '/v3/content', {
        title: name,
        type: 'media',
        attachment: { name, file: Buffer.from(text).toString('base64') },
      });
      const opened = await context.newPage();
      const download = opened.waitForEvent('download', { timeout: 5000 }).catch(() => undefined);
      await opened.goto(`${srv.base}${item.attachment.original_url}`).catch(() => undefined);
      assert.ok(await download, `${name} is downloaded, not shown`);
      await opened.close();
    }
    assert.equal(await page.evaluate(() => localStorage.getItem('ran')), null, 'no uploaded script ran on the desk origin');
    await context.close();
  });
});

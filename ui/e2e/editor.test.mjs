// The story editor never loses a journalist's words, in a real browser
// against a real copydesk-server: text typed while the server is down
// survives a reload and reaches the server when it is back; a lock someone
// else takes while you type is named, and your text saves once they release
// it; a restored draft saves as a new version; the counts, the headline
// limit, and find and replace.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, server, shot, signedIn, tokenFor } from './support.mjs';

/** Waits until `check` answers true (it may throw meanwhile), or fails with `what`. */
async function until(check, what, timeout = 20000) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not happen in ${timeout} ms${last ? `: ${last.message}` : ''}`);
}

/** Serves `dir` on `listen`; resolves with the process and its address once it listens. */
function serve(dir, listen) {
  const child = spawn(server, ['serve', '--listen', listen, '--data', dir], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RUST_LOG: 'info' } });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${seen}`)), 20000);
    const read = (chunk) => {
      seen += chunk.toString();
      const found = /listening on (http:\/\/[0-9.:]+)/.exec(seen);
      if (found) {
        clearTimeout(timer);
        resolve({ child, base: found[1] });
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => reject(new Error(`the server exited (${code}): ${seen}`)));
  });
}

/** A real server that a test can kill outright and start again on the same port and data directory. */
async function startKillable() {
  const dir = mkdtempSync(join(tmpdir(), 'copydesk-e2e-editor-'));
  let { child, base } = await serve(dir, '127.0.0.1:0');
  const listen = base.replace('http://', '');
  return {
    base,
    dir,
    key(name, roles = []) {
      const args = ['key', 'create', '--data', dir, '--name', name, '--json'];
      for (const role of roles) args.push('--role', role);
      return JSON.parse(execFileSync(server, args, { encoding: 'utf8' }));
    },
    async call(key, method, path, body) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${await tokenFor(key)}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    },
    /** Kills the server as a crash would (no clean stop). */
    async kill() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
    async restart() {
      ({ child } = await serve(dir, listen));
    },
    stop() {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const lastDraft = async (srv, key, story) => (await srv.call(key, 'GET', `/v3/draft?content=${encodeURIComponent(story.srn)}`))[0];

let srv;
let browser;
let admin;

before(async () => {
  srv = await startKillable();
  admin = srv.key('Ada Admin', ['admin']);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  srv?.stop();
});

describe('the editor keeps unsaved text', () => {
  it('keeps what was typed while the server was down across a reload, and saves it when the server is back', async () => {
    const story = await srv.call(admin, 'POST', '/v3/content', { title: 'Storm night', type: 'article', content: '<p>The river rose all evening.</p>' });
    const { context, page } = await signedIn(browser, srv, admin);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    const body = page.getByRole('textbox', { name: 'Body' });
    await body.locator('p').first().click();
    await page.keyboard.press('End');

    await srv.kill();
    await page.keyboard.type(' The levee held at midnight.');
    // The refused save says why and what to do; the text stays on the page.
    await page.locator('.refused-save', { hasText: /the server cannot be reached/ }).waitFor({ timeout: 15000 });
    assert.match(await page.locator('.refused-save').innerText(), /kept on this computer/);
    assert.match(await body.innerText(), /The levee held at midnight\./);
    await shot(page, 'editor-server-down');
    // It is kept in IndexedDB, not only on the page.
    const kept = () =>
      page.evaluate(
        () =>
          new Promise((resolve) => {
            const opening = indexedDB.open('copydesk-unsaved');
            opening.onerror = () => resolve([]);
            opening.onsuccess = () => {
              const db = opening.result;
              if (!db.objectStoreNames.contains('texts')) return resolve([]);
              const all = db.transaction('texts').objectStore('texts').getAll();
              all.onsuccess = () => resolve(all.result.map((t) => t.html));
            };
          }),
      );
    await until(async () => (await kept()).some((html) => html.includes('levee held')), 'the text kept in IndexedDB');

    // A reload while the server is down cannot even load the page.
    await page.reload().catch(() => undefined);
    await srv.restart();
    // The browser may still be settling its error page: open the story once it takes the navigation.
    await until(async () => {
      await page.goto(`${srv.base}/#/content/${story.uuid}`);
      return true;
    }, 'opening the story again');
    // The restore says so, and the notice outlasts the save it starts.
    const note = page.getByText(/Restored what you typed at .* that had not reached the server/);
    await note.waitFor();
    assert.match(await page.getByRole('textbox', { name: 'Body' }).innerText(), /The river rose all evening\. The levee held at midnight\./);
    await until(async () => (await lastDraft(srv, admin, story))?.content.includes('The levee held at midnight.'), 'the draft on the server');
    await page.getByText(/Draft saved at/).waitFor({ timeout: 10000 });
    assert.ok(await note.isVisible(), 'the restore notice stays once the draft is saved');
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await note.waitFor({ state: 'detached' });
    await until(async () => (await kept()).length === 0, 'the kept copy cleared once the server has it');
    await context.close();
  });

  it('names who took the lock while you typed, keeps your text, and saves it once they release it', async () => {
    const story = await srv.call(admin, 'POST', '/v3/content', { title: 'Council budget', type: 'article', content: '<p>The budget passed.</p>' });
    const ann = srv.key('Ann Writer', ['journalist']);
    const dana = srv.key('Dana Desk', ['editor']);
    const { context, page } = await signedIn(browser, srv, ann);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    const banner = page.getByRole('region', { name: 'Lock' });
    await banner.getByText('Nobody has this story locked.').waitFor();
    const body = page.getByRole('textbox', { name: 'Body' });
    await body.locator('p').first().click();
    await page.keyboard.press('End');
    await page.keyboard.type(' By six votes.');
    await page.getByText(/Draft saved at/).waitFor({ timeout: 10000 });

    await srv.call(dana, 'POST', '/v3/lock-request', { srn: story.srn });
    const lock = (await srv.call(admin, 'GET', `/v3/content/${story.uuid}`)).lock_request;
    assert.equal(lock.user.name, 'Dana Desk');
    await page.keyboard.type(' Two members abstained.');
    await banner.getByText(/Dana Desk is working on this story: they have it locked since/).waitFor({ timeout: 15000 });
    await page.locator('.refused-save', { hasText: /Dana Desk has this story locked since/ }).waitFor({ timeout: 10000 });
    assert.match(await body.innerText(), /By six votes\. Two members abstained\./);
    assert.doesNotMatch((await lastDraft(srv, ann, story)).content, /abstained/, 'the locked story took nothing');
    await shot(page, 'editor-locked-while-typing');

    await srv.call(dana, 'DELETE', `/v3/lock-request/${lock.uuid}`);
    await banner.getByText('Nobody has this story locked.').waitFor({ timeout: 15000 });
    await until(async () => (await lastDraft(srv, ann, story)).content.includes('Two members abstained.'), 'the draft saved after the release');
    await page.getByText(/Draft saved at/).waitFor({ timeout: 10000 });
    assert.equal(await page.locator('.refused-save').count(), 0, 'the refusal is gone once it saved');
    await context.close();
  });
});

describe('drafts and versions', () => {
  it('saves a reopened draft as a new version holding the draft', async () => {
    const story = await srv.call(admin, 'POST', '/v3/content', { title: 'Ferry timetable', type: 'article', content: '<p>Ferries run hourly.</p>' });
    const { context, page } = await signedIn(browser, srv, admin);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    await page.getByRole('textbox', { name: 'Body' }).locator('p').first().click();
    await page.keyboard.press('End');
    await page.keyboard.type(' From May, every half hour.');
    await page.getByText(/Draft saved at/).waitFor({ timeout: 10000 });
    await page.reload();
    await page.getByText(/Restored your draft/).waitFor();
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.locator('.story-meta', { hasText: /· version 2$/ }).waitFor();
    const saved = await srv.call(admin, 'GET', `/v3/content/${story.uuid}`);
    assert.equal(saved.version, '2');
    assert.match(saved.content, /Ferries run hourly\. From May, every half hour\./);
    await context.close();
  });
});

describe('the news editor', () => {
  it('shows the headline as the heading, counts words, and warns as the headline nears and passes its limit', async () => {
    const story = await srv.call(admin, 'POST', '/v3/content', { title: 'Short', type: 'article', content: '<p></p>' });
    const { context, page } = await signedIn(browser, srv, admin);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    await page.getByRole('heading', { level: 1, name: 'Short' }).waitFor();
    assert.match(await page.locator('.story-meta').innerText(), /article · version 1/);
    await page.getByRole('textbox', { name: 'Body' }).click();
    await page.keyboard.type('Rain fell on the harbour all night long');
    await until(async () => /Body: 8 words, 39 characters/.test(await page.locator('#body-count').innerText()), 'the body count');

    const headline = page.getByRole('textbox', { name: 'Title', exact: true });
    const count = page.locator('#headline-count');
    await headline.fill('Harbour');
    assert.match(await count.innerText(), /1 word, 7 of 110 characters\.$/);
    assert.doesNotMatch(await count.innerText(), /limit/);
    await headline.fill(`Harbour ${'x'.repeat(92)}`); // 100 characters
    await count.getByText(/Close to the article headline limit of 110 characters/).waitFor();
    await headline.fill(`Harbour ${'x'.repeat(107)}`); // 115 characters
    await count.getByText(/5 characters over the article headline limit of 110/).waitFor();
    await page.getByRole('heading', { level: 1, name: /^Harbour x+$/ }).waitFor();
    // A warning, not a block.
    assert.equal(await page.getByRole('button', { name: 'Save as new version' }).isDisabled(), false);
    await shot(page, 'editor-headline-limit');
    await context.close();
  });

  it('replaces every occurrence in the body, and the change saves', async () => {
    const story = await srv.call(admin, 'POST', '/v3/content', {
      title: 'Town hall',
      type: 'article',
      content: '<p>The mayor spoke first. The Mayor then left.</p><p>Later the <strong>mayor</strong>’s aide spoke.</p>',
    });
    const { context, page } = await signedIn(browser, srv, admin);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    const body = page.getByRole('textbox', { name: 'Body' });
    await body.click();
    await page.keyboard.press('Control+f');
    const find = page.getByRole('search', { name: 'Find and replace in the body' });
    const field = find.getByRole('textbox', { name: 'Find' });
    await field.waitFor();
    assert.equal(await field.evaluate((el) => el === document.activeElement), true, 'focus moved into the find panel');
    await field.fill('mayor');
    await find.getByText('3 matches.').waitFor();
    await field.press('Enter');
    await find.getByText('Match 1 of 3.').waitFor();
    await find.getByRole('textbox', { name: 'Replace with' }).fill('governor');
    await find.getByRole('button', { name: 'Replace all' }).click();
    await find.getByText('Replaced 3 matches.').waitFor();
    const text = await body.innerText();
    assert.doesNotMatch(text, /mayor/i);
    assert.equal(text.match(/governor/g)?.length, 3);
    await page.keyboard.press('Escape');
    await find.waitFor({ state: 'detached' });
    // Ctrl+S saves a version.
    await page.keyboard.press('Control+s');
    await page.locator('.story-meta', { hasText: /· version 2$/ }).waitFor();
    const saved = await srv.call(admin, 'GET', `/v3/content/${story.uuid}`);
    assert.doesNotMatch(saved.content, /mayor/i);
    assert.equal(saved.content.match(/governor/g)?.length, 3);
    assert.match(saved.content, /<strong>governor<\/strong>/);
    await context.close();
  });

  it('adds a link through a dialog in the page, and lists the shortcuts', async () => {
    const story = await srv.call(admin, 'POST', '/v3/content', { title: 'Links', type: 'article', content: '<p>Read the report.</p>' });
    const { context, page } = await signedIn(browser, srv, admin);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    const body = page.getByRole('textbox', { name: 'Body' });
    await body.getByText('Read the report.').dblclick();
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog', { name: 'Add a link' });
    const address = dialog.getByRole('textbox', { name: 'Link address' });
    await address.waitFor();
    assert.equal(await address.evaluate((el) => el === document.activeElement), true, 'focus moved into the dialog');
    await address.fill('https://example.org/report');
    await address.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await body.evaluate((el) => el.contains(document.activeElement)), true, 'focus back in the body');
    assert.equal(await body.locator('a[href="https://example.org/report"]').count(), 1);

    await page.getByRole('button', { name: 'Shortcuts' }).click();
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    for (const keys of ['Ctrl+S', 'Ctrl+K', 'Ctrl+F']) await help.getByText(keys, { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    assert.equal(await page.getByRole('button', { name: 'Shortcuts' }).evaluate((el) => el === document.activeElement), true, 'focus back on the button');
    await context.close();
  });
});

// Every main screen checked by axe-core in a real browser against a real
// copydesk-server: no serious or critical accessibility violation.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { launch, signedIn, startServer } from './support.mjs';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let srv;
let browser;
let admin;
let story;

before(async () => {
  srv = await startServer();
  admin = srv.key('Ada Admin', ['admin']);
  const made = await srv.call(admin, 'POST', '/v3/content', {
    title: 'Harbour strike',
    type: 'article',
    abstract: 'Dock workers walk out.',
    content: '<p>The union said the strike would last.</p>',
  });
  story = Array.isArray(made) ? made[0] : made;
  await srv.call(admin, 'POST', '/v3/container', { title: 'Front page', type: 'manual' });
  await srv.call(admin, 'POST', '/v3/print-document', { label: 'Page one', tracking_label: 'monday/page-one.indd' });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  srv?.stop();
});

/** The serious and critical violations axe finds on the page as it is. */
async function violations(page) {
  // Evaluated through the browser's debugging protocol, which the page's CSP does not govern.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe('accessibility', () => {
  const screens = [
    ['the content list', '#/content', 'Content'],
    ['the editor', () => `#/content/${story.uuid}`, undefined],
    ['containers', '#/containers', 'Containers'],
    ['the print desk', '#/print', 'Print desk'],
    ['sync', '#/sync', 'Sync'],
    ['settings', '#/settings', 'Settings'],
  ];
  for (const [name, hash, heading] of screens) {
    it(`finds no serious or critical violation on ${name}`, async () => {
      const { context, page } = await signedIn(browser, srv, admin);
      // The change stream stays open by design, and a page with it open is never idle: checked without it.
      await context.route('**/v3/changes/stream', (route) => route.abort());
      await page.goto(`${srv.base}/${typeof hash === 'function' ? hash() : hash}`);
      await page.reload();
      if (heading) await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      else await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.waitForLoadState('networkidle');
      const found = await violations(page);
      assert.deepEqual(found, [], JSON.stringify(found, null, 2));
      await context.close();
    });
  }

  it('lets a keyboard skip straight to the story', async () => {
    const { context, page } = await signedIn(browser, srv, admin);
    await page.goto(`${srv.base}/#/content/${story.uuid}`);
    await page.getByRole('textbox', { name: 'Body' }).waitFor();
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to the story' });
    assert.ok(await skip.evaluate((link) => link === document.activeElement), 'the first Tab reaches the skip link');
    await page.keyboard.press('Enter');
    assert.ok(
      await page.evaluate(() => document.activeElement?.closest('main') !== null && document.activeElement !== document.body),
      'Enter puts the keyboard in the story',
    );
    await context.close();
  });
});

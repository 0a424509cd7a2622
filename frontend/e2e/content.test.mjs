// The blog and reports, against the real server (scripts/e2e.mjs): a post renders with its
// content, and a report filed from the app is listed for the operator, who hides the
// character so that it leaves the catalogue. Desktop and phone.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { amoraAdmin } from './support/operator.mjs';
import { cardIds, DESKTOP, launchBrowser, MOBILE, openPage, screenshot, waitForCardCount } from './support/browser.mjs';
import { signInByMail } from './support/sign-in.mjs';

const en = JSON.parse(readFileSync(new URL('../public/locales/en/translation.json', import.meta.url), 'utf8'));
const RUN = Date.now().toString(36);
const LAYOUTS = [
  { name: 'desktop', options: { viewport: DESKTOP } },
  { name: 'phone', options: { viewport: MOBILE, mobile: true } },
];

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

async function journey(options, body) {
  const { context, page, errors } = await openPage(browser, options);
  try {
    await body(page);
    assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
  } finally {
    await context.close();
  }
}

describe('blog', () => {
  for (const { name, options } of LAYOUTS) {
    it(`lists the posts and renders an article (${name})`, () =>
      journey(options, async (page) => {
        await page.goto('/blog');
        await page.getByRole('heading', { name: en.blog.heading }).waitFor();
        const cards = page.getByTestId('blog-card');
        await cards.first().waitFor();
        assert.equal(await cards.count(), 5, 'the five shipped articles');
        assert.equal(await page.title(), en.blog.metaTitle);
        await page.evaluate(() => Promise.all([...document.images].map((img) => img.decode().catch(() => undefined))));
        await screenshot(page, `blog-list-${name}`);

        const title = 'How AI companions remember you (and how you stay in control)';
        await cards.filter({ hasText: title }).click();
        await page.waitForURL('**/blogs/how-ai-companions-remember-you');
        await page.getByRole('heading', { level: 1, name: title }).waitFor();
        const body = page.getByTestId('blog-body');
        await body.getByRole('heading', { level: 2, name: 'Layer three: long-term memories' }).waitFor();
        assert.match(await body.innerText(), /You can see every memory a character holds about you/);
        assert.equal(await page.title(), `${title} – Amora`);
        // After client navigation the app wrote the head; after a reload the server did and
        // the app updated it in place: one of each, the same Article.
        const article = async () => JSON.parse(await page.locator('head script#ld-article').textContent());
        assert.equal((await article()).headline, title);
        await page.reload();
        await page.getByTestId('blog-body').waitFor();
        assert.equal(await page.locator('head link[rel="canonical"]').count(), 1);
        assert.equal(await page.locator('head script#ld-article').count(), 1);
        assert.equal((await article()).headline, title);
        assert.equal((await article()).datePublished, '2024-11-04');
        await page.evaluate(() => Promise.all([...document.images].map((img) => img.decode().catch(() => undefined))));
        await screenshot(page, `blog-article-${name}`, { fullPage: name === 'desktop' });

        await page.goto('/blog');
        await cards.first().waitFor();
        assert.equal(await page.locator('head script#ld-article').count(), 0, 'the list keeps no Article');
        await page.goto('/blogs/no-such-post');
        await page.getByTestId('not-found').waitFor();
      }));
  }
});

describe('blog publishing', () => {
  it('the operator publishes a Markdown file with amora admin, and it renders, sanitised (desktop)', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      const key = `operator-note-${RUN}`;
      const file = join(mkdtempSync(join(tmpdir(), 'amora-post-')), `${key}.md`);
      writeFileSync(
        file,
        `---\nkey: ${key}\ntitle: A note from the operator\ndescription: Published from the command line in a journey.\ndate: 2099-01-01\ncover: /blog/covers/what-is-an-ai-companion.svg\n---\n\n## Hello readers\n\nThis post was *published* by the operator.<script>window.__pwned = true</script>\n`,
      );
      assert.match(await amoraAdmin('blog', 'publish', file), /"published"/);
      try {
        await page.goto('/blog');
        await page.getByTestId('blog-card').first().filter({ hasText: 'A note from the operator' }).waitFor();
        await page.goto(`/blogs/${key}`);
        await page.getByTestId('blog-body').getByRole('heading', { level: 2, name: 'Hello readers' }).waitFor();
        assert.equal(await page.evaluate(() => window.__pwned), undefined, 'script in a post ran');
        assert.equal(await page.getByTestId('blog-body').locator('script').count(), 0);
      } finally {
        await amoraAdmin('blog', 'unpublish', key);
      }
      const response = await page.goto(`/blogs/${key}`);
      assert.equal(response.status(), 404);
    }));
});

/** The report dialog: a reason, a note, send; waits for the thank-you notification. */
async function fileReport(page, reason, note) {
  const dialog = page.getByTestId('report-dialog');
  await dialog.waitFor();
  await dialog.evaluate((el) => Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished)));
  await page.getByTestId(`report-reason-${reason}`).check();
  await page.getByTestId('report-note').fill(note);
  return dialog;
}

describe('reports', () => {
  it('a report from a card reaches the operator, who hides the character from the catalogue (desktop)', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await signInByMail(page, `reporter-${RUN}@example.com`);
      await waitForCardCount(page, 30);
      const card = page.locator('[data-testid="character-card"]').nth(4);
      const characterId = await card.getAttribute('data-character-id');
      const wrap = card.locator('..');
      await wrap.getByTestId('card-menu').click();
      await wrap.getByTestId('card-report').click();
      const dialog = await fileReport(page, 'realPerson', `Looks like a real actress (${RUN})`);
      await screenshot(page, 'report-dialog-desktop');
      await dialog.getByTestId('report-submit').click();
      await page.getByText(en.report.sent).waitFor();
      await dialog.waitFor({ state: 'detached' });

      const { reports } = JSON.parse(await amoraAdmin('reports', '--limit', '20'));
      const mine = reports.find((r) => r.note === `Looks like a real actress (${RUN})`);
      assert.ok(mine, 'the operator does not see the report');
      assert.equal(mine.characterId, characterId);
      assert.equal(mine.reason, 'realPerson');
      assert.equal(mine.characterHidden, false);

      try {
        assert.match(await amoraAdmin('character', 'hide', characterId), /"hidden"/);
        await page.goto('/');
        await waitForCardCount(page, 30);
        assert.ok(!(await cardIds(page)).includes(characterId), 'the hidden character is still in the catalogue');
        await screenshot(page, 'report-hidden-home-desktop');
        const response = await page.goto(`/chat/${characterId}`);
        assert.equal(response.status(), 404, 'its page still answers');
      } finally {
        await amoraAdmin('character', 'unhide', characterId);
      }
      await page.goto('/');
      await waitForCardCount(page, 30);
      assert.ok((await cardIds(page)).includes(characterId), 'unhiding did not bring it back');
    }));

  it('reports a character from the chat header and one of its replies (phone)', () =>
    journey({ viewport: MOBILE, mobile: true }, async (page) => {
      await signInByMail(page, `reporter-phone-${RUN}@example.com`);
      await waitForCardCount(page, 10);
      const characterId = await page
        .locator('[data-testid="character-card"]:not(:has([data-testid="card-lock"]))')
        .nth(2)
        .getAttribute('data-character-id');
      await page.goto(`/chat/${characterId}`);
      const greeting = page.locator('[data-testid="chat-message"][data-speaker="character"]').first();
      await greeting.waitFor();

      await page.getByTestId('chat-report').click();
      let dialog = await fileReport(page, 'hate', `Header report ${RUN}`);
      await screenshot(page, 'report-dialog-phone');
      await dialog.getByTestId('report-submit').click();
      await page.getByText(en.report.sent).waitFor();
      await dialog.waitFor({ state: 'detached' });

      const messageId = await greeting.getAttribute('data-message-id');
      await greeting.getByTestId('report-reply').click();
      dialog = await fileReport(page, 'other', `Reply report ${RUN}`);
      await dialog
        .getByRole('heading', {
          name: en.report.replyTitle.replace('{{name}}', await page.getByTestId('chat-character-name').innerText()),
        })
        .waitFor();
      await dialog.getByTestId('report-submit').click();
      // The first report's notice may still show: the dialog closes once the server has the report.
      await dialog.waitFor({ state: 'detached' });
      await page.getByText(en.report.sent).first().waitFor();

      const { reports } = JSON.parse(await amoraAdmin('reports', '--limit', '20'));
      const header = reports.find((r) => r.note === `Header report ${RUN}`);
      const reply = reports.find((r) => r.note === `Reply report ${RUN}`);
      assert.equal(header?.characterId, characterId);
      assert.equal(header?.messageId, null);
      assert.equal(reply?.messageId, messageId);
      assert.ok(reply?.messageText, 'the operator sees the reported reply');
    }));
});

// The operator console (issue 33) against the real server (scripts/e2e.mjs): an admin and a
// moderator are created through the token API (their TOTP codes computed here, RFC 6238);
// a user reports a character, asks for a created character to be public and pays an order;
// the admin, in the console, hides the reported character (it leaves the catalogue),
// approves the created one, refunds the order (the user's socket hears the new balance),
// publishes a blog post (it appears on /blog) and a new version of the Terms of Service (the
// user's legal page shows its date); the moderator, on a phone, sees only the moderation
// desks and is refused the admin ones with the server's 403; the audit lists every action.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  BASE_URL,
  cardIds,
  DESKTOP,
  launchBrowser,
  MOBILE,
  openPage,
  screenshot,
  waitForCardCount,
} from './support/browser.mjs';
import { recordFrames, frameAfter } from './support/frames.mjs';
import { signInByMail } from './support/sign-in.mjs';

const en = JSON.parse(readFileSync(new URL('../public/locales/en/translation.json', import.meta.url), 'utf8'));
const V2_CARD = new URL('../../cards/tests/data/v2.png', import.meta.url).pathname;
const RUN = Date.now().toString(36);
const USER_EMAIL = `operated-${RUN}@example.com`;
const REPORT_NOTE = `Operator journey report (${RUN})`;
const POST_KEY = `operator-post-${RUN}`;
const POST_TITLE = `Console post ${RUN}`;
const TODAY = new Date().toISOString().slice(0, 10);
const TERMS_TITLE = `Terms of Service (rev ${RUN})`;

/** RFC 4648 base32 (no padding) to bytes. */
function base32(secret) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of secret.replace(/=+$/, '').toUpperCase()) {
    const value = alphabet.indexOf(char);
    if (value < 0) throw new Error(`not base32: ${char}`);
    bits += value.toString(2).padStart(5, '0');
  }
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** RFC 6238: HMAC-SHA-1 over the 30-second step, dynamic truncation, 6 digits. */
export function totp(secret, at = Date.now()) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 1000 / 30)));
  const mac = createHmac('sha1', base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const code = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(code).padStart(6, '0');
}

async function createOperator(email, role) {
  const token = process.env.E2E_ADMIN_TOKEN;
  assert.ok(token, 'E2E_ADMIN_TOKEN is not set: run the journeys through scripts/e2e.mjs');
  const response = await fetch(`${BASE_URL}/lust/admin/operators/create`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, role }),
  });
  assert.equal(response.status, 200, `create-operator ${role}: ${await response.clone().text()}`);
  const created = await response.json();
  assert.equal(created.role, role);
  assert.match(created.totpSecret, /^[A-Z2-7]+$/);
  return created;
}

let browser;
let admin;
let moderator;
/** The user's page, kept open (and its socket connected) across the steps. */
let user;
const seeded = {};

before(async () => {
  browser = await launchBrowser();
  admin = await createOperator(`admin-${RUN}@example.com`, 'admin');
  moderator = await createOperator(`moderator-${RUN}@example.com`, 'moderator');
});
after(async () => {
  await user?.context.close();
  await browser?.close();
});

/**
 * The operator's current code, from a 30-second step this operator has not used yet (a
 * server may refuse a code twice): waits for the next step when the current one was used.
 */
async function freshCode(operator) {
  const step = () => Math.floor(Date.now() / 30_000);
  if (operator.lastStep !== undefined && step() <= operator.lastStep)
    await new Promise((r) => setTimeout(r, (operator.lastStep + 1) * 30_000 - Date.now() + 300));
  operator.lastStep = step();
  return totp(operator.totpSecret);
}

/** Signs an operator in through the console's form (a guarded page sends a new visitor there). */
async function consoleSignIn(page, operator, name) {
  await page.goto('/operator/queues');
  await page.waitForURL('**/operator/sign-in');
  await page.getByTestId('sign-in-form').waitFor();
  if (name) await screenshot(page, `operator-sign-in-${name}`);
  await page.getByTestId('sign-in-email').fill(operator.email);
  await page.getByTestId('sign-in-password').fill(operator.password);
  await page.getByTestId('sign-in-code').fill(await freshCode(operator));
  await page.getByTestId('sign-in-submit').click();
  await page.waitForURL('**/operator/queues');
  await page.getByTestId('operator-email').filter({ hasText: operator.email }).waitFor();
}

/** Answers the open reason prompt with `reason` and Enter; waits for it to close. */
async function giveReason(page, reason) {
  const prompt = page.getByTestId('reason-prompt');
  await prompt.waitFor();
  await page.getByTestId('reason-input').fill(reason);
  await page.getByTestId('reason-input').press('Enter');
  await prompt.waitFor({ state: 'detached', timeout: 30_000 });
}

describe('operator console', () => {
  it('a user reports a character, asks for a created one to be public and pays an order', async () => {
    user = await openPage(browser, { viewport: DESKTOP });
    const { page } = user;
    user.frames = recordFrames(page);
    await signInByMail(page, USER_EMAIL);

    // A report of a catalogue character.
    await waitForCardCount(page, 30);
    const card = page.locator('[data-testid="character-card"]').nth(6);
    seeded.reportedId = await card.getAttribute('data-character-id');
    const wrap = card.locator('..');
    await wrap.getByTestId('card-menu').click();
    await wrap.getByTestId('card-report').click();
    await page.getByTestId('report-dialog').waitFor();
    await page.getByTestId('report-reason-realPerson').check();
    await page.getByTestId('report-note').fill(REPORT_NOTE);
    await page.getByTestId('report-submit').click();
    await page.getByText(en.report.sent).waitFor();

    // A created character asked to be public: it waits for review.
    await page.goto('/myai');
    await page.getByTestId('import-input').setInputFiles(V2_CARD);
    const marisol = page.locator('[data-testid="my-character"]').filter({ hasText: 'Marisol' });
    await marisol.waitFor({ timeout: 30_000 });
    seeded.createdId = await marisol.getAttribute('data-character-id');
    await marisol.getByTestId('my-character-visibility').click();
    await page
      .locator(`[data-testid="my-character"][data-character-id="${seeded.createdId}"][data-status="review"]`)
      .waitFor({ timeout: 30_000 });

    // A paid order: a token pack through the sandbox checkout.
    await page.goto('/buytokens');
    await page.locator('[data-testid="coin-package"][data-product-id="coin_1"]').getByTestId('buy-package').click();
    await page.waitForURL('**/pay/coin_1');
    await page.getByTestId('pay-button').click();
    await page.waitForURL('**/lust/pay/sandbox/**');
    await page.getByRole('button', { name: /^Pay(?! later)/ }).click();
    await page.waitForURL('**/paymentResults/**');
    await page.locator('[data-testid="payment-result"][data-phase="paid"]').waitFor({ timeout: 30_000 });
    await page.goto('/');
    await waitForCardCount(page, 30);
  });

  it('the admin hides the reported character, approves the created one and refunds the order', async () => {
    const { context, page, errors } = await openPage(browser, { viewport: DESKTOP });
    try {
      await consoleSignIn(page, admin, 'desktop');
      for (const desk of ['queues', 'users', 'money', 'content', 'health', 'audit'])
        await page.getByTestId(`nav-${desk}`).waitFor();

      // Reports: the reported content in context; h opens the prompt; the character is hidden.
      const report = page.getByTestId('report-row').filter({ hasText: REPORT_NOTE });
      await report.waitFor();
      await report.click();
      await screenshot(page, 'operator-queues-desktop');
      await page.keyboard.press('?');
      await page.getByTestId('keys-help').waitFor();
      await screenshot(page, 'operator-keys-desktop');
      await page.keyboard.press('h');
      await screenshot(page, 'operator-reason-prompt-desktop');
      await giveReason(page, 'a real person, not a character');
      await report.getByTestId('report-decision').filter({ hasText: 'actioned' }).waitFor();

      await user.page.goto('/');
      await waitForCardCount(user.page, 30);
      assert.ok(!(await cardIds(user.page)).includes(seeded.reportedId), 'the hidden character is still listed');

      // Review: approve Marisol.
      await page.getByTestId('tab-review').click();
      const waiting = page.getByTestId('review-row').filter({ hasText: 'Marisol' });
      await waiting.waitFor();
      await waiting.click();
      await screenshot(page, 'operator-review-desktop');
      await page.keyboard.press('a');
      await giveReason(page, 'fits the guidelines');
      await waiting.waitFor({ state: 'detached' });

      // Users: the user by e-mail, then the detail page; the order refunded.
      await page.getByTestId('nav-users').click();
      await page.getByTestId('user-search-input').fill(USER_EMAIL);
      await page.getByTestId('user-search-submit').click();
      const row = page.getByTestId('user-row').filter({ hasText: USER_EMAIL });
      await row.waitFor();
      seeded.userNo = await row.getAttribute('data-user-no');
      await screenshot(page, 'operator-users-desktop');
      await row.getByRole('link', { name: seeded.userNo }).click();
      await page.getByTestId('user-account').waitFor();
      const balanceBefore = Number(await page.getByTestId('user-balance').innerText());
      const ledgerBefore = await page.getByTestId('ledger-row').count();
      const paid = page.locator('[data-testid="order-row"][data-state="paid"]');
      await paid.first().waitFor();
      seeded.orderId = await paid.first().getAttribute('data-order-id');
      await screenshot(page, 'operator-user-desktop', { fullPage: true });
      const framesBefore = user.frames.length;
      await paid.first().getByTestId('order-refund').click();
      await giveReason(page, 'asked by the user');
      await page
        .locator(`[data-testid="order-row"][data-order-id="${seeded.orderId}"][data-state="refunded"]`)
        .waitFor();
      const balanceAfter = Number(await page.getByTestId('user-balance').innerText());
      assert.ok(balanceAfter < balanceBefore, `balance ${balanceBefore} → ${balanceAfter}`);
      assert.ok((await page.getByTestId('ledger-row').count()) > ledgerBefore, 'no compensating ledger row');
      await screenshot(page, 'operator-user-refunded-desktop', { fullPage: true });
      // The user's socket hears the new balance.
      await frameAfter(user.frames, framesBefore, (f) => f.event === 'tokenCount', 'tokenCount', 30_000);

      // Money: the overview across users lists the refund, then the same order, refunded.
      await page.getByTestId('nav-money').click();
      await page.locator(`[data-testid="refund-row"][data-order-id="${seeded.orderId}"]`).waitFor();
      await page.getByTestId('money-states').waitFor();
      await screenshot(page, 'operator-money-overview-desktop', { fullPage: true });
      await page.getByTestId('money-user-input').fill(seeded.userNo);
      await page.getByTestId('money-user-submit').click();
      await page
        .locator(`[data-testid="order-row"][data-order-id="${seeded.orderId}"][data-state="refunded"]`)
        .waitFor();
      await screenshot(page, 'operator-money-desktop');
      assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
    } finally {
      await context.close();
    }
  });

  it('the admin publishes a blog post and a new Terms of Service; the user app shows both', async () => {
    const { context, page, errors } = await openPage(browser, { viewport: DESKTOP });
    try {
      await consoleSignIn(page, admin);

      // Blog: a new post with its preview beside the Markdown.
      await page.getByTestId('nav-content').click();
      await page.getByTestId('blog-posts').waitFor();
      await page.getByTestId('blog-new').click();
      await page.getByTestId('blog-key').fill(POST_KEY);
      await page.getByTestId('blog-title').fill(POST_TITLE);
      await page.getByTestId('blog-description').fill('Written in the operator console.');
      await page.getByTestId('blog-date').fill(TODAY);
      await page.getByTestId('blog-cover').fill('/blog/covers/what-is-an-ai-companion.svg');
      await page.getByTestId('blog-markdown').fill('## From the console\n\nA paragraph with **bold** text.');
      await page.getByTestId('blog-preview').getByRole('heading', { name: 'From the console' }).waitFor();
      await screenshot(page, 'operator-blog-editor-desktop', { fullPage: true });
      await page.getByTestId('blog-publish').click();
      await giveReason(page, 'new article');
      await page.locator(`[data-testid="blog-post-row"][data-key="${POST_KEY}"]`).waitFor();

      await user.page.goto('/blog');
      await user.page.getByTestId('blog-card').filter({ hasText: POST_TITLE }).waitFor();
      await screenshot(user.page, 'operator-blog-on-site-desktop');

      // Legal: the English Terms of Service, a new title and today's date.
      await page.getByTestId('tab-legal').click();
      await page.getByTestId('legal-doc').selectOption('termsOfService');
      await page.getByTestId('legal-lang').selectOption('en');
      await page.getByTestId('legal-source').waitFor();
      await page.getByTestId('legal-title').fill(TERMS_TITLE);
      await page.getByTestId('legal-date').fill(TODAY);
      await page.getByTestId('legal-preview').getByRole('heading', { name: TERMS_TITLE }).waitFor();
      await screenshot(page, 'operator-legal-editor-desktop', { fullPage: true });
      await page.getByTestId('legal-publish').click();
      await giveReason(page, 'clarified section 3');
      await page.getByTestId('legal-version-row').filter({ hasText: TODAY }).first().waitFor();

      await user.page.goto('/terms-of-service');
      const doc = user.page.getByTestId('legal-termsOfService');
      await doc.getByRole('heading', { level: 1, name: TERMS_TITLE }).waitFor();
      const shown = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' }).format(
        new Date(`${TODAY}T00:00:00Z`),
      );
      await doc.getByText(`Last modified: ${shown}`).waitFor();
      await screenshot(user.page, 'operator-terms-on-site-desktop');

      // Health: the six charts are drawn (uPlot canvases).
      await page.getByTestId('nav-health').click();
      await page.getByTestId('chart-requests').locator('canvas').waitFor();
      assert.equal(await page.locator('[data-testid^="chart-"] canvas').count(), 6);
      await page.waitForTimeout(11_000);
      await screenshot(page, 'operator-health-desktop', { fullPage: true });
      assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
    } finally {
      await context.close();
    }
  });

  it('the moderator (phone) sees only the moderation desks and is refused the admin ones', async () => {
    const { context, page, errors } = await openPage(browser, { viewport: MOBILE, mobile: true });
    try {
      await consoleSignIn(page, moderator, 'phone');
      await page.getByTestId('nav-queues').waitFor();
      for (const desk of ['money', 'content', 'health']) assert.equal(await page.getByTestId(`nav-${desk}`).count(), 0);
      await page.getByTestId('tab-reports').waitFor();
      await screenshot(page, 'operator-queues-phone');

      await page.goto('/operator/money');
      await page.getByTestId('load-error').filter({ hasText: /admin/ }).waitFor();
      await screenshot(page, 'operator-money-refused-phone');

      await page.goto(`/operator/users/${encodeURIComponent(seeded.userNo)}`);
      await page.getByTestId('load-error').filter({ hasText: /admin/ }).waitFor();
      await page.getByTestId('user-delete').click();
      await page.getByTestId('prompt-confirm-text').fill(seeded.userNo);
      await page.getByTestId('reason-input').fill('trying');
      await page.getByTestId('reason-input').press('Enter');
      await page.getByTestId('prompt-error').filter({ hasText: /admin/ }).waitFor();
      await screenshot(page, 'operator-delete-refused-phone');
      await page.getByTestId('reason-input').press('Escape');
      await page.getByTestId('reason-prompt').waitFor({ state: 'detached' });
      assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
    } finally {
      await context.close();
    }
  });

  it('the audit lists every action taken', async () => {
    const { context, page } = await openPage(browser, { viewport: DESKTOP });
    try {
      await consoleSignIn(page, admin);
      await page.getByTestId('nav-audit').click();
      await page.getByTestId('audit-row').first().waitFor();
      while (
        await page
          .getByTestId('audit-more')
          .isVisible()
          .catch(() => false)
      ) {
        await page.getByTestId('audit-more').click();
        await page.waitForTimeout(300);
      }
      const actions = await page.getByTestId('audit-row').evaluateAll((rows) => rows.map((r) => r.dataset.action));
      for (const action of [
        'signIn',
        'report/decide',
        'character/hide',
        'character/approve',
        'refund',
        'blog/publish',
        'legal/publish',
        'user/delete',
      ])
        assert.ok(actions.includes(action), `the audit lacks ${action}: ${[...new Set(actions)].join(', ')}`);
      const text = await page.getByTestId('audit-table').innerText();
      assert.ok(text.includes('a real person, not a character'), 'the reason is not shown');
      await screenshot(page, 'operator-audit-desktop', { fullPage: true });
    } finally {
      await context.close();
    }
  });
});

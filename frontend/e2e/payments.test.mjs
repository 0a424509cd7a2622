// The money loop of issue 14 against the real server and its sandbox checkout (no money
// moves): a free user runs out of free messages in chat and is offered the plans, upgrades
// through /pricing with the sandbox, lands on /paymentResults, and another open tab shows
// the balance and "Buy Tokens" without a reload; then a coin package, and cancelling the
// plan in /subscriptionmanage, which keeps access until the period ends. On a desktop and
// a phone screen. The server runs with a few free messages a day (scripts/e2e.mjs).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DESKTOP, launchBrowser, MOBILE, openPage, screenshot } from './support/browser.mjs';
import { signInByMail } from './support/sign-in.mjs';

const locale = (ns, lng = 'en') =>
  JSON.parse(readFileSync(new URL(`../public/locales/${lng}/${ns}.json`, import.meta.url), 'utf8'));
const en = locale('translation');
const payments = locale('payments');
const RUN = Date.now().toString(36);
/** A reply of a small model on a small machine: a few seconds, with room to spare. */
const REPLY_TIMEOUT_MS = 90_000;

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Every event frame of the page's sockets to /lust/api/ws, parsed, in order. */
function recordEvents(page) {
  const events = [];
  page.on('websocket', (socket) => {
    if (!new URL(socket.url()).pathname.endsWith('/lust/api/ws')) return;
    socket.on('framereceived', ({ payload }) => events.push(JSON.parse(String(payload))));
  });
  return events;
}

async function waitForEvent(events, predicate, what, timeout = REPLY_TIMEOUT_MS) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    const found = events.find(predicate);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${what} within ${timeout / 1000} s; got: ${events.map((e) => e.event).join(', ')}`);
}

/** Lets notifications (3 s) go, so that screenshots show the screen itself. */
async function noNotifications(page) {
  await page.waitForFunction(
    () => document.querySelector('[role="status"][class*="item"], [role="alert"][class*="item"]') === null,
    null,
    {
      timeout: 6_000,
    },
  );
}

/** Sends messages to an unlocked character until the server answers needPay (the free messages of the day are spent). */
async function spendFreeMessages(page, events) {
  await page.goto('/');
  const card = page.locator('[data-testid="character-card"]:not(:has([data-testid="card-lock"]))').first();
  await card.waitFor({ timeout: 30_000 });
  const characterId = await card.getAttribute('data-character-id');
  await page.goto(`/chat/${characterId}`);
  await page.getByTestId('chat-message').first().waitFor();
  await page.getByTestId('credits-left').waitFor();
  for (let sent = 0; sent < 10; sent += 1) {
    const before = events.length;
    await page.getByTestId('chat-input').fill(`Message number ${sent + 1}, tell me about your day.`);
    await page.getByTestId('chat-input').press('Enter');
    const settled = await waitForEvent(
      events,
      (e, i) =>
        i >= before && (e.event === 'chatDone' || e.event === 'chatError') && e.data.characterId === characterId,
      'a reply or a refusal',
    );
    if (settled.event === 'chatError') {
      assert.equal(settled.data.code, 40004, `chat refused with ${JSON.stringify(settled.data)}`);
      return characterId;
    }
  }
  throw new Error('the free messages never ran out');
}

/** From a checkout page with the sandbox chosen: the test page's Pay, back on the results page. */
async function payWithSandbox(page) {
  const routes = page.getByRole('radio');
  assert.equal(await routes.first().getAttribute('value'), 'sandbox');
  assert.equal(await routes.first().isChecked(), true);
  await page.getByTestId('checkout-test-note').waitFor();
  await page.getByTestId('pay-button').click();
  await page.waitForURL('**/lust/pay/sandbox/**');
  await page.getByRole('button', { name: /^Pay(?! later)/ }).waitFor();
  return async () => {
    await page.getByRole('button', { name: /^Pay(?! later)/ }).click();
    await page.waitForURL('**/paymentResults/**');
    await page.locator('[data-testid="payment-result"][data-phase="paid"]').waitFor({ timeout: 30_000 });
  };
}

async function journey(name, options) {
  const { context, page, errors } = await openPage(browser, options);
  const phone = options.mobile === true;
  try {
    const events = recordEvents(page);
    await signInByMail(page, `pay-${name}-${RUN}@example.com`);

    // The wall: the day's free messages are spent, and the chat offers the plans instead of an error.
    const characterId = await spendFreeMessages(page, events);
    const offer = page.getByTestId('need-pay-offer');
    await offer.waitFor();
    assert.equal(await offer.getAttribute('data-paid'), 'false');
    assert.ok((await offer.innerText()).includes(en.needPay.freeTitle));
    await noNotifications(page);
    await screenshot(page, `payments-wall-${name}`);
    const action = page.getByTestId('need-pay-action');
    assert.equal(await action.getAttribute('href'), '/pricing');

    // Another tab of the same user, free for now: the promo, no balance.
    const other = await context.newPage();
    other.on('pageerror', (error) => errors.push(error.message));
    const otherEvents = recordEvents(other);
    await other.goto('/');
    await other.getByTestId('profile-button').waitFor();
    await other.getByTestId('promo-link').waitFor();
    await other.evaluate(() => {
      window.__sameDocument = true;
    });
    await page.bringToFront();

    // /pricing: three plans, the test route, and the discount.
    await action.click();
    await page.waitForURL('**/pricing');
    const cards = page.getByTestId('plan-card');
    await cards.first().waitFor();
    assert.equal(await cards.count(), 3);
    assert.match(await page.getByTestId('pricing-discount').innerText(), /Up to \d+% OFF/);
    await page.getByTestId('payment-methods').getByTestId('test-payment-badge').waitFor();
    await screenshot(page, `payments-pricing-${name}`);
    await screenshot(page, `payments-pricing-${name}-full`, { fullPage: true });

    // Upgrade: one month through the sandbox.
    await page.locator('[data-testid="plan-card"][data-product-id="month_1"]').getByTestId('choose-plan').click();
    await page.waitForURL('**/pay/month_1');
    await page.getByTestId('checkout-summary').waitFor();
    await screenshot(page, `payments-checkout-${name}`);
    const confirm = await payWithSandbox(page);
    await screenshot(page, `payments-sandbox-${name}`);
    await confirm();
    const orderId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
    assert.match(orderId, /\S/);
    // This tab was at the sandbox when the order was paid; the other one kept its socket.
    await waitForEvent(
      otherEvents,
      (e) => e.event === 'paymentResult' && e.data.orderId === orderId && e.data.status === 'paid',
      'paymentResult paid',
      30_000,
    );
    assert.ok((await page.getByTestId('payment-result-text').innerText()).includes('1 month'));
    const paidBalance = await page.getByTestId('payment-result-balance').innerText();
    assert.match(paidBalance, /\d/);
    assert.ok(
      Number(await page.evaluate(() => window.localStorage.getItem('paySuccessTime'))) > 0,
      'paySuccessTime was not stored',
    );
    await screenshot(page, `payments-result-plan-${name}`);

    // The other tab: balance and "Buy Tokens", live, without a reload.
    await other.getByTestId('token-balance').waitFor({ timeout: 15_000 });
    assert.equal(await other.getByTestId('promo-link').count(), 0);
    if (phone) await other.locator('[data-testid="tab-bar"] [data-tab="buyTokens"]').waitFor();
    else await other.locator('[data-testid="side-menu"] [data-menu="buyTokens"]').waitFor();
    assert.equal(await other.evaluate(() => window.__sameDocument === true), true, 'the other tab reloaded');
    const balanceBefore = Number(await other.getByTestId('token-balance').innerText());
    await other.close();

    // A coin package: the short list on a phone, all six on a desktop.
    await page.goto('/buytokens');
    const packs = page.getByTestId('coin-package');
    await packs.first().waitFor();
    assert.equal(await packs.count(), phone ? 3 : 6);
    await screenshot(page, `payments-buytokens-${name}`);
    await page.locator('[data-testid="coin-package"][data-product-id="coin_1"]').getByTestId('buy-package').click();
    await page.waitForURL('**/pay/coin_1');
    await page.getByTestId('checkout-summary').waitFor();
    await (
      await payWithSandbox(page)
    )();
    await page.getByTestId('payment-result-text').filter({ hasText: 'tokens were added' }).waitFor();
    await page
      .waitForFunction(
        (before) => Number(document.querySelector('[data-testid="token-balance"]')?.textContent ?? '0') > before,
        balanceBefore,
        { timeout: 15_000 },
      )
      .catch(() => undefined);
    await screenshot(page, `payments-result-coins-${name}`);

    // Cancel the plan: it ends at the period end instead of renewing, and access stays.
    await page.goto('/subscriptionmanage');
    const subscription = page.getByTestId('subscription').first();
    await subscription.waitFor();
    assert.ok((await subscription.getByTestId('subscription-period-end').innerText()).startsWith('Renews on'));
    await subscription.getByTestId('cancel-subscription').click();
    await page.getByTestId('cancel-subscription-dialog').waitFor();
    await screenshot(page, `payments-cancel-confirm-${name}`);
    await page.getByTestId('confirm-cancel-subscription').click();
    await subscription
      .getByTestId('subscription-period-end')
      .filter({ hasText: /^Ends on/ })
      .waitFor();
    await page.reload();
    await page
      .getByTestId('subscription')
      .first()
      .getByTestId('subscription-period-end')
      .filter({ hasText: /^Ends on/ })
      .waitFor();
    assert.equal(await page.getByTestId('subscription').first().getAttribute('data-state'), 'cancelled');
    await noNotifications(page);
    await screenshot(page, `payments-subscription-${name}`);

    // Still a member until then: the balance shows and the chat has no daily limit.
    await page.getByTestId('token-balance').waitFor();
    await page.goto(`/chat/${characterId}`);
    await page.getByTestId('chat-message').first().waitFor();
    assert.equal(await page.getByTestId('credits-left').count(), 0, 'a member still sees free messages counted');
    const before = events.length;
    await page.getByTestId('chat-input').fill('Still here after cancelling?');
    await page.getByTestId('chat-input').press('Enter');
    const outcome = await waitForEvent(
      events,
      (e, i) =>
        i >= before && (e.event === 'chatDone' || e.event === 'chatError') && e.data.characterId === characterId,
      'a reply',
    );
    assert.equal(outcome.event, 'chatDone', `after cancelling, chat answered ${JSON.stringify(outcome.data)}`);

    // The plans page in German, as a member: translated, and nothing runs off the screen.
    await page.goto('/de/pricing');
    await page.getByRole('heading', { level: 1, name: locale('payments', 'de').pricing.heading }).waitFor();
    await page.getByTestId('plan-card').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `/de/pricing scrolls sideways by ${overflow}px`);
    await screenshot(page, `payments-pricing-de-${name}`, { fullPage: true });

    assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
  } finally {
    await context.close();
  }
}

/** A declined test payment offers the same checkout again; giving up at the processor says "cancelled". */
async function declineAndCancel() {
  const { context, page, errors } = await openPage(browser, { viewport: DESKTOP });
  try {
    await signInByMail(page, `pay-decline-${RUN}@example.com`);
    await page.goto('/pay/quarter_1');
    await page.getByTestId('checkout-summary').waitFor();
    await payWithSandbox(page);
    await page.getByRole('button', { name: 'Decline' }).click();
    await page.waitForURL('**/paymentResults/**');
    await page.locator('[data-testid="payment-result"][data-phase="failed"]').waitFor({ timeout: 30_000 });
    assert.ok((await page.getByTestId('payment-result').innerText()).includes(payments.result.failedTitle));
    await screenshot(page, 'payments-result-failed-desktop');

    await page.getByTestId('payment-retry').click();
    await page.waitForURL('**/pay/quarter_1');
    await page.getByTestId('checkout-summary').waitFor();
    await payWithSandbox(page);
    await page.getByRole('link', { name: /without choosing/ }).click();
    await page.waitForURL((url) => url.pathname.includes('/paymentResults/') && url.search === '?cancelled=1');
    await page.locator('[data-testid="payment-result"][data-phase="cancelled"]').waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('payment-retry').getAttribute('href'), '/pay/quarter_1');
    await screenshot(page, 'payments-result-cancelled-desktop');
    // Still free: the header offers the promo.
    await page.goto('/');
    await page.getByTestId('promo-link').waitFor();
    assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
  } finally {
    await context.close();
  }
}

describe('payments', () => {
  it('a declined test payment offers a retry, and giving up says the payment was cancelled (desktop)', () =>
    declineAndCancel());
  it('a free user upgrades from the chat wall with the sandbox, buys tokens and cancels (desktop)', () =>
    journey('desktop', { viewport: DESKTOP }));
  it('a free user upgrades from the chat wall with the sandbox, buys tokens and cancels (phone)', () =>
    journey('phone', { viewport: MOBILE, mobile: true }));
});

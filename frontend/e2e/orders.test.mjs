// Issue 30 against the real server and its sandbox checkout (no money moves): a free user
// buys a token pack (spec §1: coins can be bought; the Buy Tokens menu entry alone is for
// paid users), then finds the order in the order history, reached from Buy Tokens, in
// English and in German. On a desktop and a phone screen.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DESKTOP, launchBrowser, MOBILE, openPage, screenshot } from './support/browser.mjs';
import { signInByMail } from './support/sign-in.mjs';

const locale = (ns, lng = 'en') =>
  JSON.parse(readFileSync(new URL(`../public/locales/${lng}/${ns}.json`, import.meta.url), 'utf8'));
const payments = locale('payments');
const paymentsDe = locale('payments', 'de');
const RUN = Date.now().toString(36);

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

async function journey(name, options) {
  const { context, page, errors } = await openPage(browser, options);
  const phone = options.mobile === true;
  try {
    await signInByMail(page, `orders-${name}-${RUN}@example.com`);

    // A free user is sold token packs, with the plans named beside them.
    await page.goto('/buytokens');
    await page.getByTestId('buy-tokens-free').waitFor();
    const packs = page.getByTestId('coin-package');
    await packs.first().waitFor();
    assert.equal(await packs.count(), phone ? 3 : 6);
    await screenshot(page, `orders-buytokens-free-${name}`);
    await page.locator('[data-testid="coin-package"][data-product-id="coin_1"]').getByTestId('buy-package').click();
    await page.waitForURL('**/pay/coin_1');
    await page.getByTestId('checkout-test-note').waitFor();
    await page.getByTestId('pay-button').click();
    await page.waitForURL('**/lust/pay/sandbox/**');
    await page.getByRole('button', { name: /^Pay(?! later)/ }).click();
    await page.waitForURL('**/paymentResults/**');
    await page.locator('[data-testid="payment-result"][data-phase="paid"]').waitFor({ timeout: 30_000 });

    // The order history, from Buy Tokens: the paid pack with its amount and method.
    await page.goto('/buytokens');
    await page.getByTestId('buy-tokens-orders').click();
    await page.waitForURL('**/orders');
    const order = page.locator('[data-testid="order"][data-status="paid"]');
    await order.first().waitFor();
    assert.equal(await order.count(), 1);
    const row = await order.first().innerText();
    assert.match(row, /\$9\.99/);
    assert.ok(row.includes(payments.routes.sandbox), row);
    assert.ok(row.includes(payments.orders.states.paid), row);
    await screenshot(page, `orders-history-${name}`);

    // In German too.
    await page.goto('/de/orders');
    await page.getByRole('heading', { name: paymentsDe.orders.heading }).waitFor();
    await page
      .locator('[data-testid="order"][data-status="paid"]')
      .filter({ hasText: paymentsDe.orders.states.paid })
      .waitFor();
    await screenshot(page, `orders-history-de-${name}`);
    assert.deepEqual(errors, [], `console errors: ${errors.join('\n')}`);
  } finally {
    await context.close();
  }
}

describe('orders', () => {
  it('a free user buys a token pack and finds it in the order history (desktop)', () =>
    journey('desktop', { viewport: DESKTOP }));
  it('a free user buys a token pack and finds it in the order history (phone)', () =>
    journey('phone', { viewport: MOBILE, mobile: true }));
});

// The live balance end to end: one user signed in in two tabs of one browser, made paid and
// credited by the operator's command line (`amora admin …`) on the real server; both
// headers follow over the real WebSocket (tokenCount → user info refetch), without a reload.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DESKTOP, launchBrowser, openPage, OUTPUT_DIR, screenshot } from './support/browser.mjs';
import { amoraAdmin } from './support/operator.mjs';
import { signInByMail } from './support/sign-in.mjs';

const en = JSON.parse(readFileSync(new URL('../public/locales/en/translation.json', import.meta.url), 'utf8'));
const RUN = Date.now().toString(36);

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/**
 * Resolves with the first `hello` the page's socket to /lust/api/ws receives; listening
 * starts before the page opens it, so it cannot be missed.
 */
function helloOf(page) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no hello on /lust/api/ws within 15 s')), 15_000);
    page.on('websocket', (socket) => {
      if (!new URL(socket.url()).pathname.endsWith('/lust/api/ws')) return;
      socket.on('framereceived', ({ payload }) => {
        const frame = JSON.parse(String(payload));
        if (frame.event !== 'hello') return;
        clearTimeout(timer);
        resolve(frame.data);
      });
    });
  });
}

/** Marks the document, so that a reload (which would drop the mark) fails the journey. */
async function markDocument(page) {
  await page.evaluate(() => {
    window.__sameDocument = true;
  });
}

async function sameDocument(page) {
  return page.evaluate(() => window.__sameDocument === true);
}

async function balanceShows(page, text) {
  await page.waitForFunction(
    (expected) => document.querySelector('[data-testid="token-balance"]')?.textContent === expected,
    text,
    {
      timeout: 15_000,
    },
  );
}

describe('realtime balance', () => {
  it('updates the header balance in two tabs when the operator makes the user paid and credits 500 coins', async () => {
    const { context, page, errors } = await openPage(browser, { viewport: DESKTOP });
    try {
      const address = `realtime-${RUN}@example.com`;
      await signInByMail(page, address);
      await page.goto('/setting');
      const userNo = (await page.getByTestId('settings-user-no').innerText()).trim();
      assert.match(userNo, /^[A-Za-z0-9]{1,10}$/);

      // Two tabs of the same signed-in user, each with its own socket.
      const firstHello = helloOf(page);
      await page.goto('/');
      const second = await context.newPage();
      second.on('pageerror', (error) => errors.push(error.message));
      const secondHello = helloOf(second);
      await second.goto('/');
      const tabs = [page, second];
      for (const hello of await Promise.all([firstHello, secondHello])) {
        assert.equal(hello.coin, 0);
        assert.match(hello.userId, /\S/);
      }
      for (const tab of tabs) {
        await tab.getByTestId('profile-button').waitFor();
        // A free user sees the promo, not a balance.
        await tab.getByTestId('promo-link').waitFor();
        assert.equal(await tab.getByTestId('token-balance').count(), 0);
        await markDocument(tab);
      }

      // Paid: both headers switch to the balance (0 coins) on the tokenCount event.
      await amoraAdmin('set-vip', userNo, '1');
      for (const tab of tabs) {
        await balanceShows(tab, '0');
        assert.equal(await tab.getByTestId('promo-link').count(), 0);
      }

      // 500 coins show as 50 in both tabs.
      await amoraAdmin('credit', userNo, '500');
      for (const tab of tabs) {
        await balanceShows(tab, '50');
        assert.equal(await sameDocument(tab), true, 'the tab reloaded instead of updating live');
      }

      // The popover of the tab in front: the balance and what voice and images cost (2 and 20 coins).
      await page.bringToFront();
      await page.getByTestId('token-balance').click();
      const popover = page.getByRole('dialog', { name: en.header.tokenBalance });
      await popover.waitFor();
      const text = await popover.innerText();
      assert.match(text, /50/);
      assert.ok(text.includes(en.header.voiceCost.replace('{{cost}}', '0.2')), text);
      assert.ok(text.includes(en.header.imageCost.replace('{{cost}}', '2')), text);
      assert.ok(text.includes(en.header.getMoreTokens), text);
      await screenshot(page, 'realtime-balance-desktop');
      const box = await popover.boundingBox();
      await page.screenshot({
        path: join(OUTPUT_DIR, 'realtime-balance-header.png'),
        clip: { x: DESKTOP.width - 520, y: 0, width: 520, height: Math.ceil(box.y + box.height + 16) },
      });

      // A debit from the operator is followed too, in the tab behind.
      await amoraAdmin('credit', userNo, '-15');
      await balanceShows(second, '48.5');
      await balanceShows(page, '48.5');
      assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
    } finally {
      await context.close();
    }
  });
});

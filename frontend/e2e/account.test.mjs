// Accounts end to end, against the real server and the real SMTP server of scripts/e2e.mjs:
// signing up by mailed link, the profile menu, settings, ID and password, deletion, and the
// four login steps as they look on a phone and a desktop.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { BASE_URL, DESKTOP, launchBrowser, MOBILE, openPage, screenshot } from './support/browser.mjs';
import { signInLink, waitForMail } from './support/mailbox.mjs';
import { openLogin, requestLink } from './support/sign-in.mjs';

const en = JSON.parse(readFileSync(new URL('../public/locales/en/translation.json', import.meta.url), 'utf8'));
const RUN = Date.now().toString(36);
const PASSWORD = 'amora-e2e-1';

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
    await body(page, context);
    assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
  } finally {
    await context.close();
  }
}

/** Resolves once the page has loaded anew (after a reload or a full navigation). */
async function markPage(page) {
  await page.evaluate(() => {
    window.__beforeReload = true;
  });
  return () =>
    page.waitForFunction(() => window.__beforeReload === undefined && document.readyState === 'complete', null, {
      timeout: 15_000,
    });
}

function notification(page, text) {
  return page.locator('[role="alert"], [role="status"]').filter({ hasText: text });
}

describe('login steps', () => {
  for (const [name, viewport, mobile] of [
    ['mobile', MOBILE, true],
    ['desktop', DESKTOP, false],
  ]) {
    it(`steps 1–4 on ${name} (${viewport.width}×${viewport.height})`, () =>
      journey({ viewport, mobile }, async (page) => {
        await page.goto('/');
        const modal = await openLogin(page);
        assert.equal(await modal.evaluate((el) => el.offsetWidth), mobile ? 375 : 567);
        assert.ok((await modal.evaluate((el) => el.offsetHeight)) <= viewport.height - 200);
        // No client ids are configured in the test server: both buttons say so.
        for (const provider of ['google', 'discord']) {
          const button = page.getByTestId(`login-${provider}`);
          assert.equal(await button.isDisabled(), true, `${provider} is enabled without a client id`);
          assert.match(await button.innerText(), new RegExp(en.login.unavailable, 'i'));
        }
        await screenshot(page, `login-step1-${name}`);

        const address = `steps-${name}-${RUN}@example.com`;
        await requestLink(page, address);
        await page.getByText(en.login.devCheckNote).waitFor();
        await screenshot(page, `login-step2-${name}`);

        await page.getByTestId('login-email-submit').click();
        await page.getByTestId('login-sent').waitFor();
        assert.equal(await page.getByTestId('login-sent-address').innerText(), address);
        await screenshot(page, `login-step3-${name}`);
        const mail = await waitForMail(address);
        assert.match(signInLink(mail), new RegExp(`^${BASE_URL}/`));

        // Step 3's back button reloads the page.
        const reloaded = await markPage(page);
        await page.getByTestId('login-back').click();
        await reloaded();
        await openLogin(page);
        await page.getByTestId('login-id-method').click();
        assert.equal(await page.getByTestId('login-password-submit').isDisabled(), true);
        await page.getByTestId('login-id-input').fill('20481736');
        await page.getByTestId('login-password-input').fill('password');
        assert.equal(await page.getByTestId('login-password-submit').isDisabled(), false);
        await screenshot(page, `login-step4-${name}`);
        await page.getByTestId('login-back').click();
        await page.getByTestId('login-email-method').waitFor();
      }));
  }
});

describe('account', () => {
  it('signs up by mailed link, sets a password, logs out, logs in with ID and password, and deletes the account', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      const address = `journey-${RUN}@example.com`;

      // Sign up: the link arrives over SMTP and signs this browser in.
      await page.goto('/');
      await openLogin(page);
      await requestLink(page, address);
      await page.getByTestId('login-email-submit').click();
      await page.getByTestId('login-sent').waitFor();
      const link = signInLink(await waitForMail(address));
      await page.goto(link);
      await page.waitForURL((url) => url.pathname === '/' && url.search === '');
      await page.getByTestId('profile-button').waitFor();
      assert.equal(await page.getByTestId('sign-in').count(), 0);

      // The profile menu: Settings and Logout.
      await page.getByTestId('profile-button').click();
      const menu = page.getByRole('menu');
      await menu.getByRole('menuitem', { name: en.header.logout }).waitFor();
      await menu.getByRole('menuitem', { name: en.header.settings }).click();
      await page.waitForURL('**/setting');

      // Settings: the ID to log in with, and a first password.
      const userNo = (await page.getByTestId('settings-user-no').innerText()).trim();
      assert.match(userNo, /^[A-Za-z0-9]{1,10}$/);
      assert.equal(await page.locator('[data-method="email"]').getAttribute('data-on'), 'true');
      assert.equal(await page.locator('[data-method="password"]').getAttribute('data-on'), 'false');
      await page.getByTestId('settings-new-password').fill(PASSWORD);
      await page.getByTestId('settings-confirm-password').fill(PASSWORD);
      await page.getByTestId('settings-password-save').click();
      await notification(page, en.settings.passwordSet).waitFor();
      await page.getByTestId('settings-old-password').waitFor();
      assert.equal(await page.locator('[data-method="password"]').getAttribute('data-on'), 'true');
      await notification(page, en.settings.passwordSet).waitFor({ state: 'detached', timeout: 6_000 });
      await screenshot(page, 'settings-desktop', { fullPage: true });

      // Log out: back home, signed out, no voucher kept.
      const loggedOut = await markPage(page);
      await page.getByTestId('profile-button').click();
      await page.getByRole('menuitem', { name: en.header.logout }).click();
      await loggedOut();
      assert.equal(new URL(page.url()).pathname, '/');
      await page.getByTestId('sign-in').waitFor();
      assert.equal(await page.evaluate(() => window.localStorage.getItem('appVoucher')), null);

      // The mailed link works once only.
      await page.goto(link);
      await notification(page, en.login.linkExpired).waitFor();
      await page.waitForURL((url) => url.pathname === '/' && url.search === '');
      await page.getByTestId('sign-in').waitFor();

      // Log in with ID and password.
      await openLogin(page);
      await page.getByTestId('login-id-method').click();
      await page.getByTestId('login-id-input').fill(userNo);
      await page.getByTestId('login-password-input').fill(PASSWORD);
      const loggedIn = await markPage(page);
      await page.getByTestId('login-password-submit').click();
      await notification(page, en.login.success).waitFor();
      await loggedIn();
      await page.getByTestId('profile-button').waitFor();

      // Delete the account: confirmed by typing the ID, then home, signed out.
      await page.goto('/setting');
      await page.getByTestId('settings-delete-open').click();
      const dialog = page.getByTestId('delete-account-dialog');
      await dialog.waitFor();
      assert.equal(await page.getByTestId('delete-confirm').isDisabled(), true);
      await page.getByTestId('delete-confirm-input').fill(userNo);
      await dialog.evaluate((el) => Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished)));
      await screenshot(page, 'settings-delete-desktop');
      const deleted = await markPage(page);
      await page.getByTestId('delete-confirm').click();
      await deleted();
      await notification(page, en.settings.deleteDone).waitFor();
      await page.waitForURL((url) => url.pathname === '/' && url.search === '');
      await page.getByTestId('sign-in').waitFor();

      // The same e-mail must wait 7 days; the ID no longer logs in.
      await openLogin(page);
      await requestLink(page, address);
      await page.getByTestId('login-email-submit').click();
      await page.getByTestId('login-modal').getByRole('alert').filter({ hasText: en.errors.accountDeleted }).waitFor();
      await page.getByTestId('login-back').click();
      await page.getByTestId('login-id-method').click();
      await page.getByTestId('login-id-input').fill(userNo);
      await page.getByTestId('login-password-input').fill(PASSWORD);
      await page.getByTestId('login-password-submit').click();
      await page.getByTestId('login-modal').getByRole('alert').filter({ hasText: en.login.wrongPassword }).waitFor();
    }));

  it('settings on a phone', () =>
    journey({ viewport: MOBILE, mobile: true }, async (page) => {
      const address = `phone-${RUN}@example.com`;
      await page.goto('/');
      await openLogin(page);
      await requestLink(page, address);
      await page.getByTestId('login-email-submit').click();
      await page.getByTestId('login-sent').waitFor();
      await page.goto(signInLink(await waitForMail(address)));
      await page.getByTestId('profile-button').waitFor();
      await page.goto('/setting');
      await page.getByTestId('settings-user-no').waitFor();
      await page.waitForFunction(() => [...document.images].every((img) => img.complete));
      await screenshot(page, 'settings-mobile');
      await page.getByTestId('settings-avatar').click();
      await page.getByTestId('avatar-choice').first().waitFor();
      const chosen = await page.getByTestId('avatar-choice').first().locator('img').getAttribute('src');
      await page.waitForFunction(() =>
        [...document.querySelectorAll('[data-testid="avatar-picker"] img')].slice(0, 8).every((img) => img.complete),
      );
      await screenshot(page, 'settings-avatar-mobile');
      await page.getByTestId('avatar-choice').first().click();
      await page.getByTestId('avatar-picker').waitFor({ state: 'detached' });
      assert.equal(await page.getByTestId('profile-button').locator('img').getAttribute('src'), chosen);
    }));

  it('tells a visitor when a provider is not set up on this server', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto(`/lust/api/googleLogin?state=${encodeURIComponent(`${BASE_URL}/`)}`);
      await notification(page, 'Sign-in with Google is not available on this site.').waitFor();
      await page.waitForURL((url) => url.pathname === '/' && url.search === '');
    }));
});

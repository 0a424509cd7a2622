// Signing in the way a visitor does: the login modal's e-mail step, the development bot
// check, and the link the server mails to the journeys' SMTP server.
import assert from 'node:assert/strict';
import { signInLink, waitForMail } from './mailbox.mjs';

/** Waits until the modal has finished opening and its image has loaded. */
export async function settled(page) {
  const modal = page.getByTestId('login-modal');
  await modal.waitFor();
  await modal.evaluate((el) => Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished)));
  await page.waitForFunction(() =>
    [...document.querySelectorAll('[data-testid="login-modal"] img')].every((img) => img.complete),
  );
  return modal;
}

export async function openLogin(page) {
  await page.getByTestId('sign-in').click();
  return settled(page);
}

/** Fills the e-mail step up to an enabled 'Email' button. */
export async function requestLink(page, address) {
  await page.getByTestId('login-email-method').click();
  await page.getByTestId('login-email-input').fill(address);
  const submit = page.getByTestId('login-email-submit');
  assert.equal(await submit.isDisabled(), true, 'Email is enabled before the bot check');
  await page.getByTestId('bot-check-development-checkbox').check();
  await page.waitForFunction(() => document.querySelector('[data-testid="login-email-submit"]')?.disabled === false);
}

/** Signs `address` up or in from the home page and returns the mailed link it used. */
export async function signInByMail(page, address) {
  await page.goto('/');
  await openLogin(page);
  await requestLink(page, address);
  await page.getByTestId('login-email-submit').click();
  await page.getByTestId('login-sent').waitFor();
  const link = signInLink(await waitForMail(address));
  await page.goto(link);
  await page.waitForURL((url) => url.pathname === '/' && url.search === '');
  await page.getByTestId('profile-button').waitFor();
  return link;
}

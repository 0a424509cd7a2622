// The user's persona end to end (issue 18), on a desktop and on a phone, against the real
// server: set a persona in settings, open a character whose greeting says {{user}} and see
// the persona's name in it; then give another character a persona of its own from the chat
// screen's dialog. (What each persona puts in the prompt is the API tests' part:
// server/tests/api/persona.rs reads the prompts.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DESKTOP, launchBrowser, MOBILE, openPage, screenshot } from './support/browser.mjs';
import { signInByMail } from './support/sign-in.mjs';

const persona = JSON.parse(readFileSync(new URL('../public/locales/en/persona.json', import.meta.url), 'utf8'));
const seeds = JSON.parse(readFileSync(new URL('../../store/src/seed/characters.json', import.meta.url), 'utf8'));
const RUN = Date.now().toString(36);

/** Free, unrestricted seeded characters whose greeting names the user. */
const greeters = seeds.filter((c) => c.usedType === 0 && !c.restricted && c.greeting.includes('{{user}}'));

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

describe('persona', () => {
  for (const [name, viewport, mobile, offset] of [
    ['desktop', DESKTOP, false, 0],
    ['phone', MOBILE, true, 2],
  ]) {
    it(`is set in settings and fills {{user}} in a greeting, and one character gets its own (${name})`, async () => {
      const { context, page, errors } = await openPage(browser, { viewport, mobile });
      try {
        await signInByMail(page, `persona-${name}-${RUN}@example.com`);
        const everyoneName = `Captain ${name === 'desktop' ? 'Ann' : 'Pia'}`;

        // Settings: the persona for every character.
        await page.goto('/setting');
        const form = page.getByTestId('persona-form');
        await form.waitFor();
        await page.getByTestId('persona-form-name').fill(everyoneName);
        await page
          .getByTestId('persona-form-description')
          .fill('A night nurse who sails a small boat called the Kittiwake.');
        await page.getByTestId('persona-form-save').click();
        await page.locator('[role="alert"], [role="status"]').filter({ hasText: persona.saved }).first().waitFor();
        await page.getByTestId('persona-form-remove').waitFor();
        await page.getByTestId('settings-persona').scrollIntoViewIfNeeded();
        await screenshot(page, `persona-settings-${name}`);

        // A new conversation: the greeting calls the user by the persona's name.
        const first = greeters[offset];
        await page.goto(`/chat/${first.key}`);
        const greeting = page.getByTestId('chat-message').first();
        await greeting.waitFor();
        assert.equal(await greeting.getAttribute('data-speaker'), 'character');
        const text = await greeting.innerText();
        assert.ok(text.includes(everyoneName), `the greeting does not name ${everyoneName}: ${text}`);
        assert.ok(!text.includes('{{user}}'), text);
        await screenshot(page, `persona-greeting-${name}`);

        // The chat screen: this character's own persona.
        const second = greeters[offset + 1];
        await page.goto(`/chat/${second.key}`);
        await page.getByTestId('chat-message').first().waitFor();
        await page.getByTestId('chat-persona').click();
        const dialog = page.getByTestId('persona-dialog');
        await dialog.waitFor();
        const current = page.getByTestId('persona-current');
        await current.waitFor();
        assert.equal(
          await current.getAttribute('data-persona'),
          everyoneName,
          'the persona for every character applies',
        );
        await page.getByTestId('chat-persona-form-name').fill('Dr Lark');
        await page.getByTestId('chat-persona-form-save').click();
        await page.waitForFunction(
          () => document.querySelector('[data-testid="persona-current"]')?.getAttribute('data-persona') === 'Dr Lark',
        );
        await screenshot(page, `persona-dialog-${name}`);
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });

        assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
      } finally {
        await context.close();
      }
    });
  }
});

// The chat journey's edges of issue 30, against the real server, on a desktop and on a phone:
// a signed-out visitor opening a character's page (`/chat/gf-001`, in the sitemap) sees the
// character (portrait, name, age, introduction, greeting) with a clear way to sign in, and
// signing in there, by the mailed link and by ID and password, comes back to that page; a
// card's import takes the age the card states (and refuses a minor's), asking only when it
// states none.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DESKTOP, launchBrowser, MOBILE, openPage, screenshot } from './support/browser.mjs';
import { signInLink, waitForMail } from './support/mailbox.mjs';
import { requestLink, settled, signInByMail } from './support/sign-in.mjs';

const en = JSON.parse(readFileSync(new URL('../public/locales/en/translation.json', import.meta.url), 'utf8'));
const RUN = Date.now().toString(36);
const PASSWORD = 'amora-edges-1';
const CHARACTER = 'gf-001';

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

/** The signed-out character page, checked: every part of the character is on it. */
async function expectCharacterShown(page) {
  const preview = page.getByTestId('chat-character-preview');
  await preview.waitFor({ timeout: 20_000 });
  // The server wrote the character's name into the head (docs/api.md "Pages"): the page shows the same.
  const name = (await preview.getByTestId('preview-name').innerText()).trim();
  assert.ok(name.length > 0, 'no name');
  await page
    .waitForFunction((shown) => document.title.startsWith(`${shown} – `), name, { timeout: 10_000 })
    .catch(async () => assert.fail(`title ${await page.title()} is not ${name}'s`));
  assert.match((await preview.getByTestId('preview-age').innerText()).trim(), /^\d+ years$/);
  assert.ok((await preview.getByTestId('preview-introduction').innerText()).trim().length > 10, 'no introduction');
  const greeting = (await preview.getByTestId('preview-greeting').innerText()).trim();
  assert.ok(greeting.length > 10, 'no greeting');
  assert.doesNotMatch(greeting, /\{\{|\}\}/, `placeholders left in the greeting: ${greeting}`);
  // gf-001 greets "Hey, {{user}}!": someone not signed in reads "Hey, you!", not "Hey, You!".
  assert.doesNotMatch(greeting, /, You\b/, `the visitor is named "You" mid-sentence: ${greeting}`);
  const portrait = preview.getByTestId('preview-portrait');
  await page.waitForFunction(
    () => {
      const img = document.querySelector('[data-testid="preview-portrait"]');
      return img?.complete && img.naturalWidth > 0;
    },
    null,
    { timeout: 15_000 },
  );
  assert.ok(((await portrait.boundingBox())?.width ?? 0) >= 120, 'the portrait is too small to see');
  // The login prompt does not cover the character: it opens when asked for.
  assert.equal(await page.getByTestId('login-modal').count(), 0, 'the login modal covers the character');
  return name;
}

async function signInByLinkHere(page, address) {
  await page.getByTestId('preview-sign-in').click();
  await settled(page);
  await requestLink(page, address);
  await page.getByTestId('login-email-submit').click();
  await page.getByTestId('login-sent').waitFor();
  await page.goto(signInLink(await waitForMail(address)));
}

/** Signed in on the character's chat: the conversation with the composer, no preview. */
async function expectChatOpen(page, name) {
  await page.waitForURL((url) => url.pathname === `/chat/${CHARACTER}`, { timeout: 15_000 });
  await page.getByTestId('profile-button').waitFor();
  await page.getByTestId('chat-character-name').filter({ hasText: name }).waitFor({ timeout: 20_000 });
  assert.equal(await page.getByTestId('chat-character-preview').count(), 0);
}

describe('a signed-out character page', () => {
  for (const [label, viewport, mobile] of [
    ['desktop', DESKTOP, false],
    ['phone', MOBILE, true],
  ]) {
    it(`shows the character and returns to it after signing in, by link and by password (${label})`, () =>
      journey({ viewport, mobile }, async (page) => {
        const address = `edges-${label}-${RUN}@example.com`;
        await page.goto(`/chat/${CHARACTER}`);
        const name = await expectCharacterShown(page);
        await screenshot(page, `signed-out-character-${label}`, { fullPage: true });

        // The mailed link lands on the character's chat, not on the home page.
        await signInByLinkHere(page, address);
        await expectChatOpen(page, name);
        await screenshot(page, `signed-in-character-${label}`);

        // A password, then out and back in with ID and password on the character's page.
        await page.goto('/setting');
        const userNo = (await page.getByTestId('settings-user-no').innerText()).trim();
        await page.getByTestId('settings-new-password').fill(PASSWORD);
        await page.getByTestId('settings-confirm-password').fill(PASSWORD);
        await page.getByTestId('settings-password-save').click();
        await page.getByTestId('settings-old-password').waitFor();
        await page.context().clearCookies();
        await page.evaluate(() => window.localStorage.removeItem('appVoucher'));
        await page.goto(`/chat/${CHARACTER}`);
        await expectCharacterShown(page);
        await page.getByTestId('preview-sign-in').click();
        await settled(page);
        await page.getByTestId('login-id-method').click();
        await page.getByTestId('login-id-input').fill(userNo);
        await page.getByTestId('login-password-input').fill(PASSWORD);
        await page.getByTestId('login-password-submit').click();
        await page.locator('[role="alert"], [role="status"]').filter({ hasText: en.login.success }).waitFor();
        await expectChatOpen(page, name);
      }));
  }

  it('shows nothing of a character a signed-out visitor may not see', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/chat/no-such-character');
      await page.getByTestId('chat-signed-out').waitFor();
      assert.equal(await page.getByTestId('chat-character-preview').count(), 0);
    }));
});

/** A V2 card whose description is `description`. */
function cardFile(name, description) {
  const card = {
    spec: 'chara_card_v2',
    spec_version: '2.0',
    data: {
      name,
      description,
      personality: 'calm, precise, warm once you know her',
      scenario: '',
      first_mes: 'Welcome aboard, {{user}}.',
      mes_example: '',
      creator_notes: '',
      system_prompt: '',
      post_history_instructions: '',
      alternate_greetings: [],
      tags: ['sea'],
      creator: 'e2e',
      character_version: '1',
      extensions: {},
    },
  };
  const file = join(mkdtempSync(join(tmpdir(), 'amora-edges-')), `${name.replace(/\W+/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(card));
  return file;
}

describe('importing a card', () => {
  it('takes the age the card states, refuses a minor, and asks only when the card states none', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await signInByMail(page, `edges-import-${RUN}@example.com`);
      await page.goto('/myai');
      await page.getByTestId('my-ai-empty').waitFor({ timeout: 30_000 });
      const mine = (name) => page.locator('[data-testid="my-character"]').filter({ hasText: name });

      // "She is 31": imported at 31, no question; its introduction has no raw {{char}}.
      await page
        .getByTestId('import-input')
        .setInputFiles(
          cardFile('Captain Ines', '{{char}} sails a small schooner along the coast. She is 31, calm and precise.'),
        );
      await mine('Captain Ines').waitFor({ timeout: 30_000 });
      assert.equal(await page.getByTestId('import-age-dialog').count(), 0, 'asked for an age the card states');
      const ines = await mine('Captain Ines').innerText();
      assert.match(ines, /\b31 years\b/);
      assert.match(ines, /Captain Ines sails a small schooner/);
      assert.doesNotMatch(ines, /\{\{char\}\}/);

      // "Age: 16": refused, and no question that would let an age be typed over it.
      await page.getByTestId('import-input').setInputFiles(cardFile('Young Mira', 'Age: 16\nShe likes the sea.'));
      await page
        .locator('[role="alert"], [role="status"]')
        .filter({ hasText: /18 or older|not allowed/ })
        .waitFor();
      assert.equal(await page.getByTestId('import-age-dialog').count(), 0, 'asked for an age over a minor');
      assert.equal(await mine('Young Mira').count(), 0);

      // No age anywhere: the question, as before.
      await page.getByTestId('import-input').setInputFiles(cardFile('Quiet Lena', 'A lighthouse keeper who reads.'));
      const ageDialog = page.getByTestId('import-age-dialog');
      await ageDialog.getByTestId('import-age-input').fill('29');
      await ageDialog.getByTestId('import-age-submit').click();
      await mine('Quiet Lena').waitFor({ timeout: 30_000 });
      assert.match(await mine('Quiet Lena').innerText(), /\b29 years\b/);
      await screenshot(page, 'import-stated-age-desktop', { fullPage: true });
    }));
});

// Issue 17 end to end, against the real server (scripts/e2e.mjs) with its embedded
// illustrator and chat model: a signed-out visitor builds a girlfriend step by step (the
// portrait drawn from her looks at each step), survives a reload and a language change,
// meets the login prompt on Create, signs in by the mailed link, comes back to the last step
// with nothing lost, creates her, finds her in My AI and chats with her. Then a V2 PNG card
// (cards/tests/data/v2.png) is imported (the card gives no age: the page asks), its
// alternate greetings are offered in chat, and it is exported again as a PNG whose `chara`
// chunk holds the card. On a desktop and a phone. Last, an imported card's alternate
// greetings are offered in chat.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DESKTOP, launchBrowser, MOBILE, OUTPUT_DIR, openPage, screenshot } from './support/browser.mjs';
import { signInLink, waitForMail } from './support/mailbox.mjs';
import { requestLink, settled, signInByMail } from './support/sign-in.mjs';

const locale = (ns, lng = 'en') =>
  JSON.parse(readFileSync(new URL(`../public/locales/${lng}/${ns}.json`, import.meta.url), 'utf8'));
const en = locale('translation');
const create = locale('create');
const createDe = locale('create', 'de');
const V2_CARD = new URL('../../cards/tests/data/v2.png', import.meta.url).pathname;
const RUN = Date.now().toString(36);
/** The embedded illustrator and model on a small, shared machine. */
const SLOW_MS = 120_000;

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Lets notifications (3 s) go, so that screenshots show the screen itself. */
async function noNotifications(page) {
  await page.waitForFunction(
    () => document.querySelector('[role="status"][class*="item"], [role="alert"][class*="item"]') === null,
    null,
    { timeout: 6_000 },
  );
}

const builder = (page) => page.getByTestId('character-builder');
async function onStep(page, step) {
  await page.locator(`[data-testid="character-builder"][data-step="${step}"]`).waitFor({ timeout: 10_000 });
}

/** The portrait shown is a real picture (the illustrator's PNG as a data URL), loaded. */
async function portraitDrawn(page) {
  await page.locator('[data-testid="portrait-preview"][data-status="ready"]').waitFor({ timeout: SLOW_MS });
  const [width, src] = await page.getByTestId('portrait-image').evaluate(async (img) => {
    if (!img.complete) await new Promise((resolve) => img.addEventListener('load', resolve, { once: true }));
    return [img.naturalWidth, img.getAttribute('src')];
  });
  assert.ok(width > 0, 'the portrait has no pixels');
  assert.match(src, /^data:image\/[a-z]+;base64,/);
  return src;
}

/** Picks the `n`-th (0-based) offered preset of a group. */
async function pick(page, group, n = 0) {
  const chip = page.locator(`[data-testid="preset-chip"][data-group="${group}"]`).nth(n);
  await chip.click();
  return chip.getAttribute('data-key');
}

const fieldErrors = (page) => page.getByTestId('field-error').evaluateAll((els) => els.map((el) => el.dataset.field));

/** The PNG's tEXt chunks, by keyword. */
function textChunks(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'not a PNG');
  const chunks = {};
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (type === 'tEXt') {
      const data = bytes.subarray(at + 8, at + 8 + length);
      const zero = data.indexOf(0);
      chunks[data.toString('latin1', 0, zero)] = data.toString('latin1', zero + 1);
    }
    at += 12 + length;
  }
  return chunks;
}

async function journey(name, options) {
  const { context, page, errors } = await openPage(browser, options);
  const phone = options.mobile === true;
  const address = `create-${name}-${RUN}@example.com`;
  const characterName = phone ? 'Lena Night' : 'Lena Day';
  const greeting = 'Hi {{user}}! I saved you a seat by the window.';
  try {
    // Signed out, the builder opens with the options of the server and a first portrait.
    await page.goto('/createcharacter');
    await builder(page).waitFor({ timeout: 30_000 });
    assert.equal(await page.getByRole('heading', { level: 1, name: create.page.createCharacter.heading }).count(), 1);
    assert.equal(await page.title(), en.seo.createCharacter.title);
    assert.equal(
      await page.locator('link[rel="canonical"]').getAttribute('href'),
      new URL('/createcharacter', page.url()).href,
    );
    if (phone) {
      // No header switch on a phone: the first step has its own.
      assert.equal(await page.getByTestId('header-gender-switch').count(), 0);
      await page.getByTestId('builder-gender-switch').getByRole('tab', { name: create.gender.boyfriend }).click();
      await page.locator('[data-testid="character-builder"][data-gender="1"]').waitFor();
      await page.getByTestId('builder-gender-switch').getByRole('tab', { name: create.gender.girlfriend }).click();
    } else {
      // The header's switch shows here on wide screens and switches the builder's gender.
      const headerSwitch = page.getByTestId('header-gender-switch');
      await headerSwitch.getByRole('tab', { name: en.gender.guys }).click();
      await page.locator('[data-testid="character-builder"][data-gender="1"]').waitFor();
      await headerSwitch.getByRole('tab', { name: en.gender.girls }).click();
    }
    await page.locator('[data-testid="character-builder"][data-gender="0"]').waitFor();
    await portraitDrawn(page);
    await screenshot(page, `create-style-${name}`);
    await page.getByTestId('builder-next').click();

    // Looks: an age under 18 is refused before Next; a new choice redraws the portrait.
    await onStep(page, 'looks');
    const firstPortrait = await portraitDrawn(page);
    await page.getByTestId('field-looks.age').fill('17');
    await page.getByTestId('builder-next').click();
    assert.deepEqual(await fieldErrors(page), ['looks.age']);
    await onStep(page, 'looks');
    await screenshot(page, `create-looks-refused-${name}`);
    await page.getByTestId('field-looks.age').fill('24');
    await pick(page, 'hairColors', 1);
    await pick(page, 'eyes', 1);
    await page.waitForFunction(
      (before) => {
        const img = document.querySelector(
          '[data-testid="portrait-preview"][data-status="ready"] [data-testid="portrait-image"]',
        );
        return img !== null && img.getAttribute('src') !== before;
      },
      firstPortrait,
      { timeout: SLOW_MS },
    );
    await portraitDrawn(page);
    await screenshot(page, `create-looks-${name}`);
    await page.getByTestId('builder-next').click();

    // Personality and relationship must be chosen; the words are free.
    await onStep(page, 'personality');
    await page.getByTestId('builder-next').click();
    assert.deepEqual(await fieldErrors(page), ['personality.preset', 'relationship.preset']);
    await pick(page, 'personalities', 0);
    await pick(page, 'relationships', 0);
    await page.getByTestId('field-personality.text').fill('Paints at night, laughs at her own jokes.');
    await page.getByTestId('builder-next').click();

    // Voice: the server's voices of her gender.
    await onStep(page, 'voice');
    const voices = page.getByTestId('voice-option');
    if ((await voices.count()) > 0) await voices.last().click();
    await page.getByTestId('builder-next').click();

    // Name and story; a reload and a language change keep everything.
    await onStep(page, 'story');
    await page.getByTestId('builder-next').click();
    assert.deepEqual(await fieldErrors(page), ['characterName', 'introduction', 'greeting']);
    await page.getByTestId('field-characterName').fill(characterName);
    await page.getByTestId('field-introduction').fill('A barista who paints the harbour at night.');
    await page.getByTestId('field-greeting').fill(greeting);
    await page.getByTestId('tag-input').fill('Artistic');
    await page.getByTestId('tag-add').click();
    await page.reload();
    await onStep(page, 'story');
    assert.equal(await page.getByTestId('field-characterName').inputValue(), characterName);
    await page.goto('/de/createcharacter');
    await onStep(page, 'story');
    await page.getByRole('heading', { level: 2, name: createDe.steps.story }).waitFor();
    assert.equal(await page.getByTestId('field-greeting').inputValue(), greeting);
    await page.goto('/createcharacter');
    await onStep(page, 'story');
    await screenshot(page, `create-story-${name}`);
    await page.getByTestId('builder-next').click();

    // The last step: private; Create asks a signed-out visitor to sign in.
    await onStep(page, 'publish');
    await page.getByTestId('visibility-private').check();
    await page.getByTestId('sign-in-note').waitFor();
    await page.getByTestId('builder-create').click();
    await settled(page);
    await screenshot(page, `create-login-prompt-${name}`);
    await requestLink(page, address);
    await page.getByTestId('login-email-submit').click();
    await page.getByTestId('login-sent').waitFor();
    // The link returns to the page it was asked from (issue 30), the builder.
    await page.goto(signInLink(await waitForMail(address)));
    await page.waitForURL((url) => url.pathname === '/createcharacter');
    await page.getByTestId('profile-button').waitFor();

    // Creation from the menu: the last step, everything there; Create works.
    if (phone) await page.getByTestId('tab-bar').getByRole('link', { name: en.nav.create }).click();
    else await page.getByTestId('side-menu').getByRole('link', { name: en.nav.createCharacter }).click();
    await onStep(page, 'publish');
    await page.getByTestId('signed-in-note').waitFor();
    assert.equal(await page.getByTestId('preview-name').innerText(), characterName);
    await portraitDrawn(page);
    await screenshot(page, `create-signed-in-${name}`);
    await page.getByTestId('builder-create').click();
    await page.waitForURL((url) => url.pathname === '/myai' && url.searchParams.has('created'), { timeout: SLOW_MS });
    const characterId = new URL(page.url()).searchParams.get('created');

    // My AI: her card, private, with her portrait; the draft is gone.
    const card = page.locator(`[data-testid="my-character"][data-character-id="${characterId}"]`);
    await card.waitFor();
    assert.equal(await card.getAttribute('data-status'), 'private');
    assert.equal(await card.getByTestId('my-character-name').innerText(), characterName);
    await card
      .locator('img')
      .evaluate((img) =>
        img.complete ? null : new Promise((resolve) => img.addEventListener('load', resolve, { once: true })),
      );
    assert.ok((await card.locator('img').evaluate((img) => img.naturalWidth)) > 0, 'her portrait has no pixels');
    assert.equal(
      await page.evaluate(() => localStorage.getItem('createCharacterData')),
      null,
      'the draft was kept after creating',
    );
    await noNotifications(page);
    await screenshot(page, `my-ai-${name}`);

    // Chat with her: her greeting with the user's name, then a real reply.
    await card.getByTestId('my-character-chat').click();
    await page.waitForURL(`**/chat/${characterId}`);
    await page.getByTestId('chat-character-name').filter({ hasText: characterName }).waitFor({ timeout: 30_000 });
    const first = page.locator('[data-testid="chat-message"][data-speaker="character"]').first();
    await first.waitFor({ timeout: 30_000 });
    const greeted = await first.getByTestId('message-bubble').innerText();
    assert.ok(
      greeted.startsWith('Hi ') && greeted.includes('I saved you a seat') && !greeted.includes('{{user}}'),
      greeted,
    );
    const input = page.getByTestId('chat-input');
    await input.fill('Hi Lena! What are you painting tonight?');
    await input.press('Enter');
    await page.locator('[data-testid="chat-message"][data-speaker="character"]').nth(1).waitFor({ timeout: SLOW_MS });
    await page.getByTestId('pending-reply').waitFor({ state: 'detached', timeout: SLOW_MS });
    await screenshot(page, `create-chat-${name}`);

    // Import a V2 PNG card: its description says "She is 34", so it is imported at 34
    // without a question (a card stating no age is asked for one: edges.test.mjs).
    await page.goto('/myai');
    await page.getByTestId('my-ai-grid').waitFor();
    await page.getByTestId('import-input').setInputFiles(V2_CARD);
    const marisol = page.locator('[data-testid="my-character"]').filter({ hasText: 'Marisol' });
    await marisol.waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('import-age-dialog').count(), 0);
    assert.match(await marisol.innerText(), /\b34 years\b/);
    assert.equal(await marisol.getAttribute('data-status'), 'private');
    await noNotifications(page);
    await screenshot(page, `my-ai-imported-${name}`);

    // Export it again: a PNG whose `chara` chunk is the V2 card (and `ccv3` the V3 one).
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      marisol.getByTestId('my-character-export-png').click(),
    ]);
    const saved = join(OUTPUT_DIR, `export-${name}.png`);
    await download.saveAs(saved);
    assert.match(download.suggestedFilename(), /\.png$/);
    const chunks = textChunks(readFileSync(saved));
    assert.ok(chunks.chara, `no chara chunk; chunks: ${Object.keys(chunks).join(', ')}`);
    const v2 = JSON.parse(Buffer.from(chunks.chara, 'base64').toString('utf8'));
    assert.equal(v2.spec, 'chara_card_v2');
    assert.equal(v2.data.name, 'Marisol');
    assert.equal(v2.data.alternate_greetings.length, 2);
    assert.deepEqual(
      v2.data.extensions.x_unknown_app,
      { kept: [1, 2, { deep: true }] },
      'an unknown extension was lost',
    );
    assert.ok(chunks.ccv3, 'no ccv3 chunk');
    assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
  } finally {
    await context.close();
  }
}

/**
 * A card's alternate greetings are offered in chat while only the greeting is there, and the
 * one picked takes its place (`chat/chooseGreeting`).
 */
async function greetings(options) {
  const { context, page, errors } = await openPage(browser, options);
  try {
    await signInByMail(page, `greetings-${RUN}@example.com`);
    await page.goto('/myai');
    await page.getByTestId('my-ai-empty').waitFor({ timeout: 30_000 });
    await page.getByTestId('import-input').setInputFiles(V2_CARD);
    const marisol = page.locator('[data-testid="my-character"]').filter({ hasText: 'Marisol' });
    await marisol.waitFor({ timeout: 30_000 });
    await marisol.getByTestId('my-character-chat').click();
    const choices = page.getByTestId('greeting-choices');
    await choices.waitFor({ timeout: 30_000 });
    assert.equal(await choices.getByTestId('greeting-choice').count(), 3);
    await screenshot(page, 'chat-greetings-offered');
    await choices.locator('[data-testid="greeting-choice"][data-index="2"]').click();
    await page
      .locator('[data-testid="chat-message"][data-speaker="character"]')
      .filter({ hasText: "Another one washed up. Tea's on the stove" })
      .waitFor({ timeout: 10_000 });
    assert.equal(await page.getByTestId('chat-message').count(), 1);
    await screenshot(page, 'chat-greetings-chosen');
    assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
  } finally {
    await context.close();
  }
}

describe('create a character, My AI and cards', () => {
  it('builds a girlfriend signed out, signs in on the last step, creates and chats; imports and exports a card (desktop)', () =>
    journey('desktop', { viewport: DESKTOP }));
  it('builds a girlfriend signed out, signs in on the last step, creates and chats; imports and exports a card (phone)', () =>
    journey('phone', { viewport: MOBILE, mobile: true }));
  it('offers an imported card’s alternate greetings in chat and puts the chosen one in place', () =>
    greetings({ viewport: DESKTOP }));
});

// Journeys a visitor takes through the app, against the real server (scripts/e2e.mjs).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { cardIds, DESKTOP, launchBrowser, MOBILE, openPage, screenshot, waitForCardCount } from './support/browser.mjs';

const en = JSON.parse(readFileSync(new URL('../public/locales/en/translation.json', import.meta.url), 'utf8'));
const de = JSON.parse(readFileSync(new URL('../public/locales/de/translation.json', import.meta.url), 'utf8'));
const PAGE_SIZE = 30;

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Runs one journey in a fresh context and closes it; page errors fail the journey. */
async function journey(options, body) {
  const { context, page, errors } = await openPage(browser, options);
  try {
    await body(page, context);
    assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
  } finally {
    await context.close();
  }
}

/**
 * Scrolls to the end of the grid and waits until the next page has arrived: 60 cards, or
 * fewer when the catalogue ended (then the marketing text shows). Returns the card count.
 */
async function scrollToSecondPage(page) {
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await page.waitForFunction(
    (n) =>
      document.querySelectorAll('[data-testid="character-card"]').length >= n ||
      document.querySelector('[data-testid="marketing"]') !== null,
    PAGE_SIZE * 2,
    { timeout: 20_000 },
  );
  return page.locator('[data-testid="character-card"]').count();
}

describe('home', () => {
  it('loads 30 cards, and scrolling loads the next 30 without duplicates', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/');
      await page.getByRole('heading', { name: en.home.headingGirls }).waitFor();
      await waitForCardCount(page, PAGE_SIZE);
      const first = await cardIds(page);
      assert.equal(first.length, PAGE_SIZE);
      assert.equal(new Set(first).size, PAGE_SIZE);

      const card = page.locator('[data-testid="character-card"]').first();
      assert.match(await card.innerText(), /\d+ years?\b/);
      assert.ok(await card.locator('img').first().getAttribute('src'));
      await screenshot(page, 'home-desktop');

      await page.mouse.move(720, 600);
      const count = await scrollToSecondPage(page);
      const both = await cardIds(page);
      assert.ok(count > PAGE_SIZE, 'scrolling loaded no second page');
      assert.equal(new Set(both).size, both.length, 'the second page repeats characters');
      assert.deepEqual(both.slice(0, PAGE_SIZE), first);
      assert.equal(count, PAGE_SIZE * 2, 'the second page holds the next 30');
    }));

  it('keeps the list and the scroll position when coming back from a chat', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/');
      await waitForCardCount(page, PAGE_SIZE);
      const count = await scrollToSecondPage(page);
      const before = await cardIds(page);
      const target = page.locator('[data-testid="character-card"]').nth(PAGE_SIZE + 2);
      await target.scrollIntoViewIfNeeded();
      const scrollY = await page.evaluate(() => window.scrollY);
      const id = await target.getAttribute('data-character-id');
      await target.click();
      await page.waitForURL(`**/chat/${id}`);
      await page.goBack();
      await page.waitForURL((url) => url.pathname === '/');
      await waitForCardCount(page, count);
      assert.deepEqual(await cardIds(page), before);
      await page.waitForFunction((y) => Math.abs(window.scrollY - y) < 80, scrollY, { timeout: 5_000 });
    }));

  it('asks first-time visitors who they are interested in', () =>
    journey({ viewport: DESKTOP, firstVisit: true }, async (page) => {
      await page.goto('/');
      const modal = page.getByTestId('interested-modal');
      await modal.getByRole('heading', { name: en.home.interestedTitle }).waitFor();
      await modal.getByRole('button', { name: en.gender.guys }).click();
      await page.waitForURL('**/ai-boyfriend');
      await page.getByRole('heading', { name: en.home.headingGuys }).waitFor();
      await page.reload();
      await page.getByRole('heading', { name: en.home.headingGuys }).waitFor();
      assert.equal(await page.getByTestId('interested-modal').count(), 0);
    }));
});

describe('gender switch', () => {
  it('swaps the catalogue and persists across a reload', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/');
      await waitForCardCount(page, PAGE_SIZE);
      const girls = new Set(await cardIds(page));

      const header = page.getByTestId('header-gender-switch');
      await header.getByRole('tab', { name: en.gender.guys }).click();
      await page.waitForURL('**/ai-boyfriend');
      await page.getByRole('heading', { name: en.home.headingGuys }).waitFor();
      await page.waitForFunction(
        (girlIds) => {
          const ids = [...document.querySelectorAll('[data-testid="character-card"]')].map(
            (c) => c.dataset.characterId,
          );
          return ids.length >= 30 && ids.every((id) => !girlIds.includes(id));
        },
        [...girls],
        { timeout: 20_000 },
      );

      await page.reload();
      await page.getByRole('heading', { name: en.home.headingGuys }).waitFor();
      await waitForCardCount(page, PAGE_SIZE);
      const guys = await cardIds(page);
      assert.ok(
        guys.every((id) => !girls.has(id)),
        'the boyfriend catalogue shows girlfriend characters',
      );
      assert.equal(
        await page.getByTestId('header-gender-switch').getByRole('tab', { selected: true }).innerText(),
        en.gender.guys,
      );
      assert.equal(await page.evaluate(() => window.localStorage.getItem('interestedGender')), '1');
      assert.equal(await page.locator('[data-menu="explore"]').getAttribute('href'), '/ai-boyfriend');
    }));
});

describe('languages', () => {
  it('/de/ renders German', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/de/');
      await page.getByRole('heading', { name: de.home.headingGirls }).waitFor();
      assert.notEqual(de.home.headingGirls, en.home.headingGirls);
      assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
      await page.getByRole('link', { name: de.nav.generateImage }).first().waitFor();
      assert.equal(await page.locator('[data-menu="explore"]').getAttribute('href'), '/de/');
      await waitForCardCount(page, PAGE_SIZE);
      await screenshot(page, 'home-desktop-de');
    }));
});

describe('layout', () => {
  it('a 390×844 screen shows the drawer and the tab bar', () =>
    journey({ viewport: MOBILE, mobile: true }, async (page) => {
      await page.goto('/');
      await waitForCardCount(page, PAGE_SIZE);
      const tabBar = page.getByTestId('tab-bar');
      await tabBar.waitFor();
      for (const label of [en.nav.explore, en.nav.generate, en.nav.create, en.nav.chat, en.nav.upgrade]) {
        assert.ok(await tabBar.getByRole('link', { name: label }).isVisible(), `tab ${label}`);
      }
      assert.equal(await page.getByTestId('side-menu').count(), 0);
      await screenshot(page, 'home-mobile');

      await page.getByTestId('open-drawer').click();
      const drawer = page.getByTestId('mobile-drawer');
      await drawer.waitFor();
      for (const label of [
        en.nav.explore,
        en.nav.chat,
        en.nav.gallery,
        en.nav.generateImage,
        en.nav.createCharacter,
        en.nav.myAi,
        en.nav.upgrade,
      ]) {
        assert.ok(await drawer.getByRole('link', { name: label }).isVisible(), `drawer ${label}`);
      }
      assert.equal(await drawer.evaluate((el) => getComputedStyle(el).zIndex), '700');
      await drawer.evaluate((el) => Promise.all(el.getAnimations().map((a) => a.finished)));
      await screenshot(page, 'drawer-mobile');
    }));

  it('a 1440×900 screen shows the 240 px side menu', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/');
      const menu = page.getByTestId('side-menu');
      await menu.waitFor();
      assert.equal(Math.round((await menu.boundingBox()).width), 240);
      assert.equal(await page.getByTestId('tab-bar').count(), 0);
      assert.equal(await page.getByTestId('open-drawer').count(), 0);
      await page.getByTestId('header-gender-switch').waitFor();
      await page.getByTestId('desktop-footer').waitFor({ state: 'attached' });
    }));
});

describe('login prompt', () => {
  it('opens from a guarded side-menu item, 567 px wide, and resets when closed', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/');
      await page.getByTestId('sign-in').waitFor();
      await page.locator('[data-menu="chat"]').click();
      const modal = page.getByTestId('login-modal');
      await modal.waitFor();
      assert.equal(new URL(page.url()).pathname, '/');
      // offsetWidth ignores the opening animation's scale.
      assert.equal(await modal.evaluate((el) => el.offsetWidth), 567);
      await modal.getByRole('button', { name: en.login.google }).waitFor();
      await modal.getByRole('button', { name: en.login.discord }).waitFor();
      await modal.evaluate((el) => Promise.all(el.getAnimations().map((a) => a.finished)));
      await screenshot(page, 'login-desktop');

      await page.getByTestId('login-email-method').click();
      const email = page.getByTestId('login-email-input');
      await email.fill('not-an-email');
      assert.equal(await page.getByTestId('login-email-submit').isDisabled(), true);
      await email.fill('visitor@example.com');
      // Without Turnstile the server runs a development check, labelled as such.
      assert.equal(await page.getByTestId('login-email-submit').isDisabled(), true);
      await page.getByTestId('bot-check-development-checkbox').check();
      assert.equal(await page.getByTestId('login-email-submit').isDisabled(), false);

      await page.keyboard.press('Escape');
      await modal.waitFor({ state: 'detached' });
      await page.locator('[data-menu="gallery"]').click();
      await modal.waitFor();
      assert.equal(
        await page.getByTestId('login-email-method').isVisible(),
        true,
        'the modal did not go back to step 1',
      );
    }));

  it('opens from the guarded Chat tab on a phone, 375 px wide', () =>
    journey({ viewport: MOBILE, mobile: true }, async (page) => {
      await page.goto('/');
      await page.getByTestId('sign-in').waitFor();
      await page.locator('[data-tab="chat"]').click();
      const modal = page.getByTestId('login-modal');
      await modal.waitFor();
      assert.equal(await modal.evaluate((el) => el.offsetWidth), 375);
      assert.ok((await modal.evaluate((el) => el.offsetHeight)) <= MOBILE.height - 200);
      await modal.evaluate((el) => Promise.all(el.getAnimations().map((a) => a.finished)));
      await screenshot(page, 'login-mobile');
      // Generate is not guarded on the tab bar.
      await page.keyboard.press('Escape');
      await page.locator('[data-tab="generate"]').click();
      await page.waitForURL('**/generateimage');
    }));

  it('reports a failed ID and password sign-in without leaving the modal', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/');
      await page.getByTestId('sign-in').click();
      await page.getByTestId('login-id-method').click();
      const submit = page.getByTestId('login-password-submit');
      assert.equal(await submit.isDisabled(), true);
      await page.getByTestId('login-id-input').fill('ABCDEFGHIJKLMN');
      assert.equal(await page.getByTestId('login-id-input').inputValue(), 'ABCDEFGHIJ');
      await page.getByTestId('login-password-input').fill('wrong-password');
      await submit.click();
      await page.getByTestId('login-modal').getByRole('alert').waitFor();
      assert.equal(await page.getByTestId('login-modal').isVisible(), true);
    }));
});

describe('routing', () => {
  it('an unknown route shows Not Found with a way home', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/definitely-not-a-page');
      await page.getByRole('heading', { name: en.notFound.title }).waitFor();
      await screenshot(page, 'not-found');
      await page.getByRole('link', { name: en.notFound.home, exact: true }).click();
      await page.waitForURL((url) => url.pathname === '/');
      await page.getByRole('heading', { name: en.home.headingGirls }).waitFor();
    }));

  it('tells a visitor whose account was deleted, then cleans the URL', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/?showNoAccountError=1');
      await page.getByRole('alert').filter({ hasText: en.errors.accountDeleted }).waitFor();
      await page.waitForURL((url) => url.pathname === '/' && url.search === '');
    }));

  it('sets the title, canonical link and JSON-LD per route', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/ai-boyfriend');
      await page.getByRole('heading', { name: en.home.headingGuys }).waitFor();
      await page.waitForFunction((title) => document.title === title, en.seo.homeGuys.title);
      const canonical = await page.locator('link[rel="canonical"]').getAttribute('href');
      assert.equal(new URL(canonical).pathname, '/ai-boyfriend');
      const description = await page.locator('meta[name="description"]').getAttribute('content');
      assert.ok(description.length <= 160);
      const types = await page
        .locator('script[type="application/ld+json"]')
        .evaluateAll((nodes) => nodes.map((n) => JSON.parse(n.textContent)['@type']));
      assert.deepEqual(types.sort(), ['BreadcrumbList', 'Organization']);
      await page.waitForFunction(() => window.prerenderReady === true, null, { timeout: 10_000 });
    }));
});

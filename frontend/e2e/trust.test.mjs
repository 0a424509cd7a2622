// Journeys of issue 15 (frontend half): the age gate, the remembered language, the legal and
// landing pages, and every footer and menu link reaching a real page. Against the real
// server (scripts/e2e.mjs), on a desktop and a phone screen.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DESKTOP, launchBrowser, MOBILE, openPage, screenshot } from './support/browser.mjs';
import { signInByMail } from './support/sign-in.mjs';

const locale = (lng, ns) =>
  JSON.parse(readFileSync(new URL(`../public/locales/${lng}/${ns}.json`, import.meta.url), 'utf8'));
const en = locale('en', 'translation');
const fr = locale('fr', 'translation');
const legal = locale('en', 'legal');
const topics = locale('en', 'topics');

const SCREENS = [
  { name: 'desktop', options: { viewport: DESKTOP } },
  { name: 'phone', options: { viewport: MOBILE, mobile: true } },
];

/** Something every routed screen renders once it is ready, Not Found included. */
const PAGE_READY = [
  'not-found',
  'legal-page',
  'home-girls',
  'home-guys',
  'chat-page',
  'chat-signed-out',
  'settings-page',
  'settings-signed-out',
  'blog-list',
  'pricing-page',
  'buy-tokens-page',
  'generate-page',
  'gallery-page',
  'create-page',
  'my-ai-page',
]
  .map((id) => `[data-testid="${id}"]`)
  .concat('[data-testid^="landing-ai"]', '[data-testid="landing-spicyAi"]', '[data-testid="landing-hentaiAi"]')
  .join(', ');

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

const stripLanguage = (path) => path.replace(/^\/(en|de|es|fr|id|it|ja|ko|pl|pt)(?=\/|$)/, '') || '/';

describe('age gate', () => {
  for (const { name, options } of SCREENS) {
    it(`a first visit meets it; the terms open stacked; confirming lets the visitor in for good (${name})`, () =>
      journey({ ...options, ageGate: true }, async (page) => {
        await page.goto('/');
        const gate = page.getByTestId('age-gate');
        await gate.waitFor();
        assert.equal(await page.getByTestId('character-card').count(), 0, 'catalogue shown behind the gate');
        assert.equal(await page.getByTestId('header').count(), 0, 'the shell shows behind the gate');
        assert.ok(await gate.getByRole('heading', { name: en.ageGate.title }).isVisible());
        await screenshot(page, `age-gate-${name}`);

        await gate.getByTestId('age-gate-open-termsOfUse').click();
        const terms = page.getByTestId('legal-dialog');
        await terms.getByRole('heading', { name: legal.docs.termsOfUse.title }).waitFor();
        assert.equal(await page.getByRole('dialog').count(), 2, 'the terms are stacked over the gate');
        const termsBox = await terms.boundingBox();
        assert.ok(termsBox.width <= options.viewport.width, 'the terms dialog fits the screen');
        await screenshot(page, `age-gate-terms-${name}`);
        await terms.getByRole('button', { name: en.common.close }).click();
        await terms.waitFor({ state: 'detached' });
        assert.ok(await gate.isVisible(), 'closing the terms goes back to the gate');

        await gate.getByTestId('age-gate-open-privacyPolicy').click();
        await page.getByTestId('legal-dialog').getByRole('heading', { name: legal.docs.privacyPolicy.title }).waitFor();
        await page.keyboard.press('Escape');
        await page.getByTestId('legal-dialog').waitFor({ state: 'detached' });

        await page.getByTestId('age-gate-confirm').click();
        await page.getByRole('heading', { name: en.home.headingGirls }).waitFor();
        await page.getByTestId('character-card').first().waitFor();
        await page.reload();
        await page.getByRole('heading', { name: en.home.headingGirls }).waitFor();
        assert.equal(await page.getByTestId('age-gate').count(), 0, 'the gate came back after a reload');
      }));
  }

  it('a visitor who declines leaves the site', () =>
    journey({ viewport: DESKTOP, ageGate: true }, async (page, context) => {
      // The neutral page is off this server; answer it locally instead of reaching the internet.
      await context.route('https://www.google.com/**', (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: '<p>elsewhere</p>' }),
      );
      await page.goto('/ai-sex');
      await page.getByTestId('age-gate-decline').click();
      await page.waitForURL('https://www.google.com/');
    }));

  it('the app-embedded policy pages are not gated and have no shell or heading', () =>
    journey({ viewport: MOBILE, mobile: true, ageGate: true }, async (page) => {
      await page.goto('/privacyPolicyForApp');
      const doc = page.getByTestId('legal-privacyPolicy');
      await doc.waitFor();
      assert.equal(await page.getByTestId('age-gate').count(), 0);
      assert.equal(await page.getByTestId('header').count(), 0);
      assert.equal(await doc.getByRole('heading', { level: 1 }).count(), 0);
      await screenshot(page, 'privacy-for-app-phone');
      await page.goto('/communityGuidelinesForApp');
      await page.getByTestId('legal-communityGuidelines').waitFor();
      assert.equal(await page.getByTestId('age-gate').count(), 0);
    }));
});

describe('remembered language', () => {
  it('French picked in the footer is still French when / is opened again', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/');
      await page.getByRole('heading', { name: en.home.headingGirls }).waitFor();
      await page.getByTestId('desktop-footer').getByTestId('language-select').selectOption('fr');
      await page.waitForURL('**/fr/');
      await page.getByRole('heading', { name: fr.home.headingGirls }).waitFor();
      await page.goto('/');
      await page.waitForURL('**/fr/');
      await page.getByRole('heading', { name: fr.home.headingGirls }).waitFor();
      assert.equal(await page.evaluate(() => document.documentElement.lang), 'fr');
      // Picking English again goes to the unprefixed address (never /en/, issue 30), English.
      await page.getByTestId('desktop-footer').getByTestId('language-select').selectOption('en');
      await page.waitForURL((url) => url.pathname === '/');
      await page.getByRole('heading', { name: en.home.headingGirls }).waitFor();
      await page.goto('/');
      await page.getByRole('heading', { name: en.home.headingGirls }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/');
    }));
});

/** The internal links (paths) of the footer and of the menu (side menu or drawer), deduplicated. */
async function shellLinks(page, mobile) {
  const hrefs = [];
  const collect = async (locator) => {
    hrefs.push(
      ...(await locator.locator('a[href^="/"]').evaluateAll((links) => links.map((a) => a.getAttribute('href')))),
    );
  };
  await collect(page.getByTestId(mobile ? 'mobile-footer' : 'desktop-footer'));
  if (mobile) {
    await page.getByTestId('open-drawer').click();
    await collect(page.getByTestId('mobile-drawer'));
    await collect(page.getByTestId('tab-bar'));
  } else {
    await collect(page.getByTestId('side-menu'));
  }
  return [...new Set(hrefs)];
}

describe('footer and menu links', () => {
  for (const { name, options } of SCREENS) {
    it(`every menu and footer link reaches a real page (${name})`, () =>
      journey(options, async (page) => {
        await page.goto('/');
        // The app's home (the server's copy of the page has the same heading, out of the shell).
        await page.getByTestId('home-girls').getByRole('heading', { name: en.home.headingGirls }).waitFor();
        const links = await shellLinks(page, options.mobile === true);
        assert.ok(links.length >= 14, `only ${links.length} links found`);
        // Creation and My AI (issue 17) are among them now.
        for (const path of ['/createcharacter', '/myai'])
          assert.ok(links.map(stripLanguage).includes(path), `no link to ${path}`);
        for (const href of links) {
          await page.goto(href);
          await page.locator(PAGE_READY).first().waitFor({ timeout: 20_000 });
          assert.equal(await page.getByTestId('not-found').count(), 0, `${href} shows Not Found`);
        }
      }));
  }

  it('links inside a legal page navigate to the other policies', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/legal-information');
      const doc = page.getByTestId('legal-termsOfUse');
      await doc.getByRole('heading', { level: 1, name: legal.docs.termsOfUse.title }).waitFor();
      assert.match(await doc.innerText(), /October 20, 2024/);
      await screenshot(page, 'terms-desktop');
      await doc.getByRole('link', { name: 'Community Guidelines' }).first().click();
      await page.waitForURL('**/communityguidelines');
      await page.getByTestId('legal-communityGuidelines').getByRole('heading', { level: 1 }).waitFor();
    }));

  it('the 2257 statement opens from the desktop footer', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await page.goto('/');
      await page.getByTestId('desktop-footer').getByRole('link', { name: en.footer.compliance }).click();
      await page.waitForURL('**/2257');
      await page
        .getByTestId('legal-compliance2257')
        .getByRole('heading', { level: 1, name: legal.docs.compliance2257.title })
        .waitFor();
    }));

  it('a legal page reads well on a phone, in German', () =>
    journey({ viewport: MOBILE, mobile: true }, async (page) => {
      await page.goto('/de/privacy-policy');
      const doc = page.getByTestId('legal-privacyPolicy');
      await doc.getByRole('heading', { level: 1, name: locale('de', 'legal').docs.privacyPolicy.title }).waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
      await screenshot(page, 'privacy-de-phone');
    }));
});

describe('landing pages', () => {
  for (const { name, options } of SCREENS) {
    it(`/ai-sex shows its copy, FAQ and matching characters (${name})`, () =>
      journey(options, async (page) => {
        await page.goto('/ai-sex');
        await page.getByRole('heading', { name: topics.aiSex.heading }).waitFor();
        const grid = page.getByTestId('landing-grid');
        await grid.getByTestId('character-card').first().waitFor({ timeout: 30_000 });
        const count = await grid.getByTestId('character-card').count();
        assert.ok(count >= 4 && count <= 12, `${count} characters`);
        assert.equal(await page.getByTestId('landing-faq').getByRole('button').count(), topics.aiSex.faq.length);
        assert.equal(await page.title(), en.seo.aiSex.title);
        await screenshot(page, `landing-ai-sex-${name}`);
        await screenshot(page, `landing-ai-sex-${name}-full`, { fullPage: true });
        await page.getByTestId('landing-chat').click();
        await page.waitForURL('**/chat/**');
      }));
  }

  it('/ai-gay shows boyfriends, read with one catalogue request', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      const catalogueCalls = [];
      page.on('request', (request) => {
        const path = new URL(request.url()).pathname;
        if (path.startsWith('/lust/api/user/v1/character/')) catalogueCalls.push(path.split('/').pop());
      });
      // Opened directly, the grid comes with the server's page: no request at all.
      await page.goto('/ai-sex');
      await page.getByTestId('landing-grid').getByTestId('character-card').first().waitFor({ timeout: 30_000 });
      await page.waitForLoadState('networkidle');
      assert.deepEqual(catalogueCalls, []);
      // Reached inside the app, it asks once.
      await page.getByTestId('desktop-footer').locator('a[href="/ai-gay"]').click();
      await page.waitForURL('**/ai-gay');
      const first = page.getByTestId('landing-grid').getByTestId('character-card').first();
      // Until the new grid arrives the previous landing's cards are still on screen (a local
      // run read gf-007 here): wait for the grid to change, then check it.
      await page
        .waitForFunction(
          () =>
            document
              .querySelector('[data-testid="landing-grid"] [data-testid="character-card"]')
              ?.getAttribute('data-character-id')
              ?.startsWith('bf-'),
          undefined,
          { timeout: 30_000 },
        )
        .catch(() => undefined);
      assert.match(await first.getAttribute('data-character-id'), /^bf-/);
      await page.waitForLoadState('networkidle');
      // The grid comes from getCharacterList's tags filter: no per-character detail reads.
      assert.deepEqual(catalogueCalls, ['getCharacterList']);
    }));
});

/** Scrolls the girlfriend catalogue to its end; returns every character id shown. */
async function wholeCatalogue(page) {
  await page.goto('/');
  await page.getByTestId('character-card').first().waitFor();
  while ((await page.getByTestId('marketing').count()) === 0) {
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForTimeout(300);
  }
  return page.getByTestId('character-card').evaluateAll((cards) => cards.map((card) => card.dataset.characterId));
}

describe('adult content', () => {
  it('turning it on asks for the 18+ confirmation when none is stored, then shows the explicit characters', () =>
    journey({ viewport: DESKTOP }, async (page) => {
      await signInByMail(page, 'adult-content@example.com');
      const before = await wholeCatalogue(page);

      await page.goto('/setting');
      const toggle = page.getByTestId('settings-nsfw');
      await toggle.waitFor();
      assert.equal(await toggle.getAttribute('aria-checked'), 'false');
      // This browser's stored confirmation is gone (storage cleared): the switch asks again.
      await page.evaluate(() => window.localStorage.removeItem('eighteenTipShow'));
      await toggle.click();
      const gate = page.getByTestId('age-gate');
      await gate.waitFor();
      assert.ok(await page.getByTestId('settings-page').isVisible(), 'settings stay behind the confirmation');
      await screenshot(page, 'adult-content-confirm-desktop');
      await gate.getByTestId('age-gate-confirm').click();
      await page.waitForFunction(
        () => document.querySelector('[data-testid="settings-nsfw"]')?.getAttribute('aria-checked') === 'true',
      );

      const after = await wholeCatalogue(page);
      const added = after.filter((id) => !before.includes(id));
      assert.ok(
        added.length > 0,
        `adult content on shows no more characters (${before.length} before, ${after.length} after)`,
      );
      assert.deepEqual(
        before.filter((id) => !after.includes(id)),
        [],
        'characters disappeared when adult content was turned on',
      );
    }));
});

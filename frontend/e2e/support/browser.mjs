// Shared set-up of the journeys: Debian's Chromium driven by playwright-core, one fresh
// browser context (fresh storage) per journey, screenshots under frontend/test-output/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const BASE_URL = process.env.E2E_BASE_URL ?? 'http://127.0.0.1:8080';
export const OUTPUT_DIR = process.env.E2E_OUTPUT_DIR ?? join(process.cwd(), 'test-output');
export const DESKTOP = { width: 1440, height: 900 };
export const MOBILE = { width: 390, height: 844 };

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Debian's Chromium, headless; `args` adds switches (the call journey's fake microphone). */
export async function launchBrowser({ args = [] } = {}) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS, ...args],
  });
}

/**
 * A new context and page. Unless `firstVisit` is set, the visitor has already answered the
 * first-visit 'I'm Interested in:' question, so it does not cover the page. Unless `ageGate`
 * is set, the visitor has already confirmed being 18 or over, so the age gate does not show.
 */
export async function openPage(
  browser,
  { viewport = DESKTOP, firstVisit = false, mobile = false, ageGate = false } = {},
) {
  const context = await browser.newContext({
    viewport,
    isMobile: mobile,
    hasTouch: mobile,
    deviceScaleFactor: 1,
    baseURL: BASE_URL,
    locale: 'en-US',
  });
  if (!firstVisit) {
    await context.addInitScript(() => {
      if (window.localStorage.getItem('user_like_gender') === null)
        window.localStorage.setItem('user_like_gender', '0');
    });
  }
  if (!ageGate) {
    await context.addInitScript(() => {
      if (window.localStorage.getItem('eighteenTipShow') === null)
        window.localStorage.setItem('eighteenTipShow', 'false');
    });
  }
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // The app's pages carry a content security policy (docs/security.md "Headers of the app's
  // pages"): anything it blocks is reported on the console and fails the journey.
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
      errors.push(`CSP: ${message.text()}`);
  });
  return { context, page, errors };
}

export async function screenshot(page, name, { fullPage = false } = {}) {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  // Let finite transitions end (a button turning enabled, a dialog rising); spinners loop forever.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity)
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
  await page.screenshot({ path: join(OUTPUT_DIR, `${name}.png`), fullPage });
}

/** The character ids currently in the grid, in order. */
export function cardIds(page) {
  return page
    .locator('[data-testid="character-card"]')
    .evaluateAll((cards) => cards.map((card) => card.dataset.characterId));
}

export async function waitForCardCount(page, count, timeout = 20_000) {
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="character-card"]').length >= n, count, {
    timeout,
  });
}

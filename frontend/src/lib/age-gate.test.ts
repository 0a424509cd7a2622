import { beforeEach, describe, expect, it } from 'vitest';
import { ageConfirmed, confirmAge, isAppEmbeddedPath, isCrawler, needsAgeGate } from '@/lib/age-gate';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const GOOGLEBOT_SMARTPHONE =
  'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const BING = 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)';
const FACEBOOK = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';
const TWITTER = 'Twitterbot/1.0';

beforeEach(() => window.localStorage.clear());

describe('who meets the age gate', () => {
  it('recognises crawlers and link previews, not browsers', () => {
    for (const agent of [GOOGLEBOT, GOOGLEBOT_SMARTPHONE, BING, FACEBOOK, TWITTER])
      expect(isCrawler(agent), agent).toBe(true);
    for (const agent of [CHROME, IPHONE]) expect(isCrawler(agent), agent).toBe(false);
  });

  it('knows the app-embedded policy pages, with or without a language prefix', () => {
    expect(isAppEmbeddedPath('/privacyPolicyForApp')).toBe(true);
    expect(isAppEmbeddedPath('/de/communityGuidelinesForApp')).toBe(true);
    expect(isAppEmbeddedPath('/privacy-policy')).toBe(false);
    expect(isAppEmbeddedPath('/')).toBe(false);
  });

  it('gates a first visit by a browser until the age is confirmed', () => {
    expect(ageConfirmed()).toBe(false);
    expect(needsAgeGate('/', CHROME)).toBe(true);
    expect(needsAgeGate('/fr/ai-sex', IPHONE)).toBe(true);
    confirmAge();
    expect(window.localStorage.getItem('eighteenTipShow')).toBe('false');
    expect(ageConfirmed()).toBe(true);
    expect(needsAgeGate('/', CHROME)).toBe(false);
  });

  it('never gates crawlers or the app-embedded pages', () => {
    expect(needsAgeGate('/', GOOGLEBOT)).toBe(false);
    expect(needsAgeGate('/ai-sex', BING)).toBe(false);
    expect(needsAgeGate('/privacyPolicyForApp', CHROME)).toBe(false);
    expect(needsAgeGate('/communityGuidelinesForApp', IPHONE)).toBe(false);
  });
});

// Server-rendered pages taken over by the app (issue 34), against the real server
// (scripts/e2e.mjs): the page's own words are on screen in every frame from the server's
// HTML to the app's screen (no splash, skeleton or empty frame between), and the app does
// not ask the API again for what the server rendered the page from.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BASE_URL, DESKTOP, launchBrowser, openPage, screenshot } from './support/browser.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/**
 * Watches every animation frame from the first one that shows `expected`: a frame whose
 * visible text (the server's page while it is in front, else the app's root) lacks it is
 * a flash. Runs before the page's own scripts.
 */
function watchFrames(expected) {
  const state = { seen: false, frames: 0, missing: 0, firstMissing: '' };
  window.__takeover = state;
  const visibleText = () => {
    const view = document.getElementById('ssr-view');
    if (view) return view.innerText;
    const root = document.getElementById('root');
    return root && !root.hidden ? root.innerText : '';
  };
  const check = () => {
    const text = document.body ? visibleText() : '';
    if (text.includes(expected)) state.seen = true;
    else if (state.seen) {
      state.missing += 1;
      if (!state.firstMissing) state.firstMissing = text.slice(0, 200) || '(nothing)';
    }
    if (state.seen) state.frames += 1;
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}

/** Opens `path` in a fresh page, counting the API calls whose path ends with one of `calls`. */
async function takeOver(path, expected, calls, shot) {
  const { context, page, errors } = await openPage(browser, { viewport: DESKTOP });
  try {
    await page.addInitScript(watchFrames, expected);
    const asked = Object.fromEntries(calls.map((call) => [call, 0]));
    page.on('request', (request) => {
      for (const call of calls) if (request.url().endsWith(call)) asked[call] += 1;
    });
    const response = await page.goto(path);
    assert.equal(response.status(), 200, path);
    // The app has taken over: the server's copy is gone and the root shows the page.
    await page.waitForFunction(() => !document.getElementById('ssr-view') && !document.getElementById('root').hidden);
    await page.getByText(expected, { exact: false }).first().waitFor();
    // A few more frames, so a late re-render would be caught too.
    await page.evaluate(() => new Promise((done) => setTimeout(done, 500)));
    const frames = await page.evaluate(() => window.__takeover);
    assert.ok(frames.seen, `${path}: the server's page showed "${expected}"`);
    assert.ok(frames.frames > 5, `${path}: frames watched: ${frames.frames}`);
    assert.equal(frames.missing, 0, `${path}: ${frames.missing} frames without "${expected}": ${frames.firstMissing}`);
    for (const call of calls) assert.equal(asked[call], 0, `${path}: ${call} asked again`);
    assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
    await screenshot(page, shot);
  } finally {
    await context.close();
  }
}

/** The server's data for a page, read as a crawler would. */
async function served(path) {
  const html = await (await fetch(`${BASE_URL}${path}`)).text();
  const json = html.split('<script type="application/json" id="ssr-data">')[1]?.split('</script>')[0];
  assert.ok(json, `${path}: no #ssr-data`);
  return JSON.parse(json).data;
}

describe('server-rendered pages', () => {
  it('the home page: the first characters stay on screen and page 1 is not asked again', async () => {
    const { list } = await served('/');
    await takeOver('/', list[0].characterName, ['/character/getCharacterList'], 'takeover-home');
  });

  it('a character page (signed out): no second getCharacterInfo', async () => {
    const { list } = await served('/');
    const character = await served(`/chat/${list[0].characterId}`);
    await takeOver(
      `/chat/${character.characterId}`,
      character.characterName,
      ['/character/getCharacterInfo'],
      'takeover-character',
    );
  });

  it('the blog list and a post in German: no second getBlogList or getBlogInfo', async () => {
    const { list } = await served('/de/blog');
    await takeOver('/de/blog', list[0].title, ['/blog/getBlogList'], 'takeover-blog-de');
    const post = await served(`/de/blogs/${list[0].blogKey}`);
    await takeOver(`/de/blogs/${post.blogKey}`, post.title, ['/blog/getBlogInfo'], 'takeover-post-de');
  });

  it('a landing page: its grid is not asked again', async () => {
    const { list } = await served('/ai-sex');
    await takeOver('/ai-sex', list[0].characterName, ['/character/getCharacterList'], 'takeover-landing');
  });
});

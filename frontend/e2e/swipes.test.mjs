// Issue 18, against the real server and its embedded model (scripts/e2e.mjs): a reply written
// again keeps its earlier versions, the arrows (and on a phone a sideways swipe) go back and
// forth between them, Continue writes the rest of the newest reply into it, and an edit of
// the message it answers offers to write it again, keeping the old one as a version.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DESKTOP, launchBrowser, MOBILE, openPage, screenshot } from './support/browser.mjs';
import { frameAfter as waitForFrame, recordFrames } from './support/frames.mjs';
import { amoraAdmin } from './support/operator.mjs';
import { signInByMail } from './support/sign-in.mjs';

const en = JSON.parse(readFileSync(new URL('../public/locales/en/translation.json', import.meta.url), 'utf8'));
const RUN = Date.now().toString(36);
const CHARACTER = 'gf-002';
/** A reply of a small model on a small machine: a few seconds, with room to spare. */
const REPLY_TIMEOUT_MS = 90_000;

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** The first frame after `from` that `predicate` accepts, within a reply's time. */
const frameAfter = (frames, from, predicate, what) => waitForFrame(frames, from, predicate, what, REPLY_TIMEOUT_MS);

const stored = (frames, from) =>
  frameAfter(frames, from, (f) => f.event === 'chatDone' || f.event === 'chatError', 'chatDone').then((f) => {
    assert.equal(f.event, 'chatDone', `the reply failed: ${JSON.stringify(f.data)}`);
    assert.ok(f.data.message, 'the reply ended without a message');
    return f.data.message;
  });

const chosen = (frames, from, index) =>
  frameAfter(
    frames,
    from,
    (f) => f.event === 'chatMessage' && f.data.message.swipes?.index === index,
    `the chosen version ${index}`,
  ).then((f) => f.data.message);

/** The bubble's text as the reader sees it (italics drop their asterisks). */
const plain = (text) => text.replace(/\*/g, '').replace(/\s+/g, ' ').trim();

async function bubbleText(page, messageId) {
  const bubble = page
    .locator(`[data-testid="chat-message"][data-message-id="${messageId}"]`)
    .getByTestId('message-bubble');
  return plain(await bubble.innerText());
}

async function expectCount(page, text) {
  await page.waitForFunction((t) => document.querySelector('[data-testid="swipe-count"]')?.textContent === t, text, {
    timeout: 10_000,
  });
}

/** Edits the user's message `messageId` in place to `content`. */
async function edit(page, messageId, content) {
  const mine = page.locator(`[data-testid="chat-message"][data-message-id="${messageId}"]`);
  await mine.getByRole('button', { name: en.chat.edit }).click();
  await mine.getByRole('textbox', { name: en.chat.edit }).fill(content);
  await mine.getByRole('button', { name: en.chat.save }).click();
  await mine.filter({ hasText: content }).waitFor();
}

/** A finger dragged sideways across the element (real touch events, through DevTools). */
async function swipeAcross(page, locator, dx) {
  const box = await locator.boundingBox();
  assert.ok(box, 'nothing to swipe');
  const cdp = await page.context().newCDPSession(page);
  const y = box.y + box.height / 2;
  const x0 = box.x + box.width / 2 - dx / 2;
  const touch = (type, x) =>
    cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y, id: 1 }] });
  await touch('touchStart', x0);
  for (let step = 1; step <= 8; step += 1) await touch('touchMove', x0 + (dx * step) / 8);
  await touch('touchEnd', x0 + dx);
  await cdp.detach();
}

describe('versions of a reply, continue, edit then write again', () => {
  it('keeps every version, switches with arrows and swipes, continues and offers a new version after an edit', async () => {
    const { context, page, errors } = await openPage(browser, { viewport: DESKTOP });
    let session;
    let question;
    try {
      const frames = recordFrames(page);
      await signInByMail(page, `swipes-${RUN}@example.com`);
      // Every version and continuation is a reply of the model, and the journeys' server
      // gives a free user 3 a day (scripts/e2e.mjs): a paid user writes as many as it needs.
      await page.goto('/setting');
      await amoraAdmin('set-vip', (await page.getByTestId('settings-user-no').innerText()).trim(), '1');
      await page.goto(`/chat/${CHARACTER}`);
      await page.getByTestId('chat-message').first().waitFor();

      // A reply, then a second version of it: "2/2" under the newest reply.
      let mark = frames.length;
      const input = page.getByTestId('chat-input');
      await input.fill('Tell me about your favourite place.');
      await input.press('Enter');
      const first = await stored(frames, mark);
      question = await page
        .getByTestId('chat-message')
        .filter({ hasText: 'Tell me about your favourite place.' })
        .getAttribute('data-message-id');
      assert.equal(await page.getByTestId('swipe-bar').count(), 0, 'a reply written once has no versions to show');
      mark = frames.length;
      await page.getByTestId('regenerate').click();
      const second = await stored(frames, mark);
      assert.deepEqual(second.swipes, { index: 1, count: 2 });
      await expectCount(page, '2/2');

      // Back to the first: the same message shows the first text; forward again.
      mark = frames.length;
      await page.getByTestId('swipe-previous').click();
      const back = await chosen(frames, mark, 0);
      assert.equal(back.messageId, second.messageId);
      assert.equal(back.content, first.content);
      await expectCount(page, '1/2');
      assert.equal(await bubbleText(page, second.messageId), plain(first.content));
      await screenshot(page, 'swipes-desktop-versions');
      mark = frames.length;
      await page.getByTestId('swipe-next').click();
      assert.equal((await chosen(frames, mark, 1)).content, second.content);
      await expectCount(page, '2/2');

      // Right past the last writes a third version.
      mark = frames.length;
      await page.getByTestId('swipe-next').click();
      const third = await stored(frames, mark);
      assert.deepEqual(third.swipes, { index: 2, count: 3 });
      await expectCount(page, '3/3');
      mark = frames.length;
      await page.getByTestId('swipe-previous').click();
      await chosen(frames, mark, 1);
      await expectCount(page, '2/3');

      // Continue: the chosen version grows in place, under its own id.
      mark = frames.length;
      await page.getByTestId('continue-reply').click();
      const continued = await stored(frames, mark);
      assert.equal(continued.messageId, third.messageId);
      assert.ok(
        continued.content.startsWith(second.content.trim()) && continued.content.length > second.content.length,
        `not a continuation: ${JSON.stringify([second.content, continued.content])}`,
      );
      assert.deepEqual(continued.swipes, { index: 1, count: 3 });
      const deltas = frames.slice(mark).filter((f) => f.event === 'chatDelta');
      assert.ok(
        deltas.length > 0 && deltas.every((f) => f.data.replyId === third.messageId),
        'the continuation streams under the reply’s id',
      );
      await page.waitForFunction(
        (id) =>
          document.querySelector(`[data-message-id="${id}"] [data-testid="message-bubble"]`)?.textContent.length > 0,
        third.messageId,
      );
      assert.equal(await bubbleText(page, third.messageId), plain(continued.content));
      await screenshot(page, 'swipes-desktop-continued');

      // Editing the question offers to write the reply again; accepting keeps the old one.
      await edit(page, question, 'Tell me about the place you love most.');
      const offer = page.getByTestId('regenerate-offer');
      await offer.waitFor();
      await screenshot(page, 'swipes-desktop-offer');
      mark = frames.length;
      await offer.getByTestId('regenerate-offer-accept').click();
      const rewritten = await stored(frames, mark);
      assert.deepEqual(rewritten.swipes, { index: 3, count: 4 });
      await expectCount(page, '4/4');
      await offer.waitFor({ state: 'detached' });
      mark = frames.length;
      await page.getByTestId('swipe-previous').click();
      assert.equal((await chosen(frames, mark, 2)).content, third.content, 'the earlier versions are all kept');
      assert.equal(await page.getByTestId('chat-message').count(), 3, 'greeting, question and one reply');
      assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
      session = await context.cookies();
    } finally {
      await context.close();
    }

    // A phone: a sideways swipe on the reply switches versions, past the last it writes one.
    const phone = await openPage(browser, { viewport: MOBILE, mobile: true });
    try {
      await phone.context.addCookies(session);
      const { page: mobile } = phone;
      const frames = recordFrames(mobile);
      await mobile.goto(`/chat/${CHARACTER}`);
      await expectCount(mobile, '3/4');
      const reply = mobile.getByTestId('chat-message').last();
      const bubble = reply.getByTestId('message-bubble');
      let mark = frames.length;
      await swipeAcross(mobile, bubble, 160);
      await chosen(frames, mark, 1);
      await expectCount(mobile, '2/4');
      mark = frames.length;
      await swipeAcross(mobile, bubble, -160);
      await chosen(frames, mark, 2);
      await expectCount(mobile, '3/4');
      mark = frames.length;
      await swipeAcross(mobile, bubble, -160);
      await chosen(frames, mark, 3);
      await expectCount(mobile, '4/4');
      await screenshot(mobile, 'swipes-mobile-versions');
      mark = frames.length;
      await swipeAcross(mobile, mobile.getByTestId('chat-message').last().getByTestId('message-bubble'), -160);
      const fifth = await stored(frames, mark);
      assert.deepEqual(fifth.swipes, { index: 4, count: 5 });
      await expectCount(mobile, '5/5');

      // Continue on a phone.
      mark = frames.length;
      await mobile.getByTestId('continue-reply').click();
      const continued = await stored(frames, mark);
      assert.equal(continued.messageId, fifth.messageId);
      assert.ok(continued.content.length > fifth.content.length);
      await screenshot(mobile, 'swipes-mobile-continued');

      // Edit, then write again from the offer.
      await edit(mobile, question, 'Where do you like to go?');
      await mobile.getByTestId('regenerate-offer').waitFor();
      await screenshot(mobile, 'swipes-mobile-offer');
      mark = frames.length;
      await mobile.getByTestId('regenerate-offer-accept').click();
      const sixth = await stored(frames, mark);
      assert.deepEqual(sixth.swipes, { index: 5, count: 6 });
      await expectCount(mobile, '6/6');
      assert.deepEqual(phone.errors, [], `uncaught page errors: ${phone.errors.join('; ')}`);
    } finally {
      await phone.context.close();
    }
  });
});

// Issue 30, against the real server and its embedded model (scripts/e2e.mjs), on a desktop
// and on a phone: the user tells four facts and some small talk, then asks about two of
// them, and the answer holds at least one; a reply stopped mid-way and continued grows by
// new text only (no second start, no speaker label).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DESKTOP, launchBrowser, MOBILE, openPage, screenshot } from './support/browser.mjs';
import { frameAfter as waitForFrame, recordFrames } from './support/frames.mjs';
import { amoraAdmin } from './support/operator.mjs';
import { signInByMail } from './support/sign-in.mjs';

const RUN = Date.now().toString(36);
const CHARACTER = 'gf-002';
const CHARACTER_NAME = 'Hana Mori';
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

/** The `chatDone` after `from` (failing on a `chatError`). */
async function done(frames, from) {
  const end = await frameAfter(frames, from, (f) => f.event === 'chatDone' || f.event === 'chatError', 'chatDone');
  assert.equal(end.event, 'chatDone', `the reply failed: ${JSON.stringify(end.data)}`);
  return end.data;
}

/** Sends `text` and waits for the reply, stored. */
async function say(page, frames, text) {
  const mark = frames.length;
  const input = page.getByTestId('chat-input');
  await input.fill(text);
  await input.press('Enter');
  const reply = await done(frames, mark);
  assert.ok(reply.message, `no reply to ${JSON.stringify(text)}`);
  return reply.message.content;
}

const plain = (text) => text.replace(/[*_]/g, '').replace(/\s+/g, ' ').trim();
const LABEL = /(^|\n)\s*[A-Z{][\w{} .'’-]{0,30}:\s/;

/** A paid user in the chat of CHARACTER: the journeys' server gives free users 3 replies a day. */
async function openChat(page, who) {
  await signInByMail(page, `${who}-${RUN}@example.com`);
  await page.goto('/setting');
  await amoraAdmin('set-vip', (await page.getByTestId('settings-user-no').innerText()).trim(), '1');
  await page.goto(`/chat/${CHARACTER}`);
  await page.getByTestId('chat-message').first().waitFor();
}

/** The Porto/Pixel conversation: four facts, small talk, the question; the answer's text. */
async function tellAndAsk(page, frames, facts, filler, question) {
  const replies = [];
  for (const text of [...facts, ...filler]) replies.push(await say(page, frames, text));
  const answer = await say(page, frames, question);
  for (const reply of [...replies, answer]) {
    assert.ok(!LABEL.test(reply), `a speaker label in a reply: ${JSON.stringify(reply)}`);
    assert.ok(!reply.startsWith(`${CHARACTER_NAME}:`), reply);
  }
  return answer;
}

/** Stops a reply once it shows, then continues it; answers both texts. */
async function stopThenContinue(page, frames) {
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    let mark = frames.length;
    const input = page.getByTestId('chat-input');
    await input.fill('Tell me a long story about the night sky and the first time you saw a comet.');
    await input.press('Enter');
    await frameAfter(frames, mark, (f) => f.event === 'chatDelta', 'the first piece of the reply');
    await page.getByTestId('chat-stop').click();
    const stopped = await done(frames, mark);
    if (stopped.finishReason !== 'cancelled' || !stopped.message) continue;
    await page.getByTestId('continue-reply').waitFor();
    mark = frames.length;
    await page.getByTestId('continue-reply').click();
    const continued = await done(frames, mark);
    assert.ok(continued.message, 'the continuation ended without a message');
    return { before: stopped.message, after: continued.message };
  }
  throw new Error('the reply ended on its own before Stop landed, three times');
}

function assertOnlyNewText(before, after) {
  const said = before.content.trim();
  assert.equal(after.messageId, before.messageId, 'continued in place');
  assert.ok(after.content.startsWith(said), `not a continuation: ${JSON.stringify([said, after.content])}`);
  const added = after.content.slice(said.length);
  assert.ok(added.trim().length > 0, 'nothing was added');
  const opening = said.slice(0, Math.min(24, said.length));
  assert.ok(!added.includes(opening), `the continuation starts over: ${JSON.stringify(added)}`);
  assert.ok(!LABEL.test(added) && !added.includes(`${CHARACTER_NAME}:`), `a label: ${JSON.stringify(added)}`);
}

describe('conversation quality (issue 30)', () => {
  it('answers a question about what was told, and continues a stopped reply with new text only, on a desktop', async () => {
    const { context, page, errors } = await openPage(browser, { viewport: DESKTOP });
    try {
      const frames = recordFrames(page);
      await openChat(page, 'porto');
      const answer = await tellAndAsk(
        page,
        frames,
        [
          'My dog is called Pixel.',
          'I live in Porto, by the river.',
          'I work as a nurse.',
          'My sister is called Lena.',
        ],
        ['haha'],
        'Do you remember my dog’s name and where I live?',
      );
      console.log(`answer: ${answer}`);
      assert.ok(/Pixel|Porto/.test(answer), `neither fact in the answer: ${answer}`);
      const last = page.getByTestId('chat-message').last().getByTestId('message-bubble');
      assert.equal(plain(await last.innerText()), plain(answer));
      await screenshot(page, 'conversation-desktop-answer');

      const { before, after } = await stopThenContinue(page, frames);
      console.log(`stopped: ${before.content}\ncontinued: ${after.content}`);
      assertOnlyNewText(before, after);
      const bubble = page
        .locator(`[data-testid="chat-message"][data-message-id="${after.messageId}"]`)
        .getByTestId('message-bubble');
      await page.waitForFunction(
        ([id, length]) =>
          (document.querySelector(`[data-message-id="${id}"] [data-testid="message-bubble"]`)?.textContent.length ??
            0) >= length,
        [after.messageId, plain(after.content).length - 2],
      );
      assert.equal(plain(await bubble.innerText()), plain(after.content));
      await screenshot(page, 'conversation-desktop-continued');
      assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
    } finally {
      await context.close();
    }
  });

  it('does the same on a phone', async () => {
    const { context, page, errors } = await openPage(browser, { viewport: MOBILE });
    try {
      const frames = recordFrames(page);
      await openChat(page, 'porto-phone');
      const answer = await tellAndAsk(
        page,
        frames,
        // The same four kinds of fact, two to a message, to keep the phone's run short.
        ['My cat is called Mochi and I live in Lyon.', 'I work as a baker, and my brother is called Tom.'],
        ['ok'],
        'What is my cat’s name?',
      );
      console.log(`answer: ${answer}`);
      assert.ok(answer.includes('Mochi'), `the fact is not in the answer: ${answer}`);
      await screenshot(page, 'conversation-mobile-answer');
      const { before, after } = await stopThenContinue(page, frames);
      assertOnlyNewText(before, after);
      await screenshot(page, 'conversation-mobile-continued');
      assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
    } finally {
      await context.close();
    }
  });
});

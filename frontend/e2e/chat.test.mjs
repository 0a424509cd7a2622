// The chat journey against the real server and its real embedded model (scripts/e2e.mjs):
// sign in, open a character from a scrolled home, send a message and watch the reply
// stream in over the WebSocket, save memories and add one, return home with the list and
// the scroll kept; then the same chat on a phone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { cardIds, DESKTOP, launchBrowser, MOBILE, openPage, screenshot, waitForCardCount } from './support/browser.mjs';
import { signInByMail } from './support/sign-in.mjs';

const en = JSON.parse(readFileSync(new URL('../public/locales/en/translation.json', import.meta.url), 'utf8'));
const RUN = Date.now().toString(36);
const PAGE_SIZE = 30;
/** A reply of a small model on a small machine: a few seconds, with room to spare. */
const REPLY_TIMEOUT_MS = 90_000;

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Every frame of the page's sockets to /lust/api/ws, both ways, parsed, in order. */
function recordFrames(page) {
  const frames = { received: [], sent: [] };
  const started = Date.now();
  page.on('websocket', (socket) => {
    if (!new URL(socket.url()).pathname.endsWith('/lust/api/ws')) return;
    socket.on('framereceived', ({ payload }) =>
      frames.received.push({ ...JSON.parse(String(payload)), at: Date.now() - started }),
    );
    socket.on('framesent', ({ payload }) => frames.sent.push(JSON.parse(String(payload))));
    socket.on('close', () => frames.received.push({ event: '(socket closed)', data: {}, at: Date.now() - started }));
  });
  return frames;
}

async function waitForFrame(frames, predicate, what, timeout = REPLY_TIMEOUT_MS) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    const found = frames.received.find(predicate);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seen = frames.received
    .filter((f) => f.event !== 'chatDelta')
    .map((f) => `${f.event}@${(f.at / 1000).toFixed(1)}s`);
  throw new Error(`no ${what} within ${timeout / 1000} s; received (deltas left out): ${seen.join(', ')}`);
}

/** Records each distinct text the pending reply shows, as the reader would see it grow. */
async function watchPendingReply(page) {
  await page.evaluate(() => {
    window.__pendingTexts = [];
    const look = () => {
      const text = document.querySelector('[data-testid="pending-reply-text"]')?.textContent;
      if (text && window.__pendingTexts.at(-1) !== text) window.__pendingTexts.push(text);
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

describe('chat', () => {
  it('opens a character from home, streams a reply, saves memories and returns to the same place', async () => {
    const { context, page, errors } = await openPage(browser, { viewport: DESKTOP });
    let session;
    let characterId;
    let text;
    let fact;
    try {
      const frames = recordFrames(page);
      await signInByMail(page, `chat-${RUN}@example.com`);

      // Home, scrolled a bit: the list and the position must survive the chat.
      await waitForCardCount(page, PAGE_SIZE);
      await page.mouse.move(720, 600);
      await page.mouse.wheel(0, 1100);
      await page.waitForFunction(() => window.scrollY > 600);
      // Scrolling may have fetched the next page: let the grid settle before noting it.
      let homeIds = await cardIds(page);
      for (let still = 0; still < 4;) {
        await new Promise((r) => setTimeout(r, 250));
        const now = await cardIds(page);
        still = now.length === homeIds.length ? still + 1 : 0;
        homeIds = now;
      }
      const unlocked = page.locator('[data-testid="character-card"]:not(:has([data-testid="card-lock"]))');
      let card = null;
      for (let i = 0; i < (await unlocked.count()); i += 1) {
        const box = await unlocked.nth(i).boundingBox();
        if (box && box.y > 80 && box.y + box.height < DESKTOP.height) {
          card = unlocked.nth(i);
          break;
        }
      }
      assert.ok(card, 'no unlocked card fully on screen after scrolling');
      const scrollY = await page.evaluate(() => window.scrollY);
      characterId = await card.getAttribute('data-character-id');
      const [prefix, suffix] = en.home.chatWith.split('{{name}}');
      const label = await card.getAttribute('aria-label');
      const characterName = label.slice(prefix.length, label.length - suffix.length);
      assert.ok(characterName, `no name in the card's label "${label}"`);
      await card.click();

      // The chat: the character's header, its greeting first, the side menu at 80 px.
      await page.waitForURL(`**/chat/${characterId}`);
      const conversation = page.getByTestId('conversation');
      await conversation.waitFor();
      await page.getByTestId('chat-character-name').filter({ hasText: characterName }).waitFor();
      const firstMessage = page.getByTestId('chat-message').first();
      await firstMessage.waitFor();
      assert.equal(
        await firstMessage.getAttribute('data-speaker'),
        'character',
        'the greeting is not the first message',
      );
      // The menu collapses with a short transition.
      await page.waitForFunction(
        () => document.querySelector('[data-testid="side-menu"]')?.getBoundingClientRect().width === 80,
        null,
        { timeout: 5_000 },
      );
      const credits = page.getByTestId('credits-left');
      await credits.waitFor();
      const creditsBefore = Number((await credits.innerText()).match(/\d+/)[0]);
      // Merely opened, the character shows in the list as the open chat, never beside
      // "No chats yet" (issue 30).
      await page.waitForFunction(() => document.querySelector('[data-testid="save-memories"]') !== null);
      await page.locator(`[data-testid="chat-list-item"][data-character-id="${characterId}"]`).waitFor();
      assert.equal(await page.getByTestId('chat-list-empty').count(), 0, '"No chats yet" beside an open chat');

      // Send with Enter; the reply streams into a pending bubble, then the stored message replaces it.
      text = 'Hi! My name is Sam, I live by the sea and I love hiking.';
      await watchPendingReply(page);
      const input = page.getByTestId('chat-input');
      await input.fill(text);
      await input.press('Enter');
      assert.equal(await input.inputValue(), '', 'the input was not cleared');
      await page.getByTestId('chat-message').filter({ hasText: text }).waitFor();
      // Written to, it is a chat: the list has it.
      await page.locator(`[data-testid="chat-list-item"][data-character-id="${characterId}"]`).waitFor();
      await page.getByTestId('chat-stop').waitFor();
      await page
        .getByTestId('pending-reply-text')
        .waitFor({ timeout: REPLY_TIMEOUT_MS })
        .catch(() => undefined);
      await screenshot(page, 'chat-desktop-streaming');
      const done = await waitForFrame(
        frames,
        (f) => f.event === 'chatDone' && f.data.characterId === characterId,
        'chatDone',
      );
      const deltas = frames.received.filter((f) => f.event === 'chatDelta' && f.data.replyId === done.data.replyId);
      assert.ok(deltas.length > 1, `the reply came in ${deltas.length} delta(s)`);
      assert.ok(done.data.message, `the reply ended without a message: ${JSON.stringify(done.data)}`);
      await page.getByTestId('pending-reply').waitFor({ state: 'detached' });
      const reply = page.locator(`[data-testid="chat-message"][data-message-id="${done.data.message.messageId}"]`);
      await reply.waitFor();
      assert.equal(await reply.getAttribute('data-speaker'), 'character');
      // The bubble's text: the row also holds the message's tools (its play button, issue 16).
      const plain = (s) => s.replace(/[*_]/g, '').replace(/\s+/g, ' ').trim();
      assert.equal(plain(await reply.getByTestId('message-bubble').innerText()), plain(done.data.message.content));
      const seen = await page.evaluate(() => window.__pendingTexts);
      assert.ok(seen.length >= 1, 'the streaming reply was never shown');
      for (let i = 1; i < seen.length; i += 1)
        assert.ok(seen[i].length >= seen[i - 1].length, `the pending reply shrank: ${JSON.stringify(seen)}`);
      assert.equal(frames.sent.filter((f) => f.action === 'chatSend').length, 1);
      await page.getByTestId('regenerate').waitFor();
      await page.waitForFunction(
        (n) => document.querySelector('[data-testid="credits-left"]')?.textContent.includes(String(n)),
        creditsBefore - 1,
      );
      // The list shows the reply as the conversation's last message.
      await page
        .locator(`[data-testid="chat-list-item"][data-character-id="${characterId}"]`)
        .filter({ hasText: done.data.message.content.slice(0, 12) })
        .waitFor();

      // Regenerate: the old reply goes (chatMessageDeleted) and a new one streams in its place.
      await page.getByTestId('regenerate').click();
      await waitForFrame(
        frames,
        (f) => f.event === 'chatMessageDeleted' && f.data.messageIds.includes(done.data.replyId),
        'chatMessageDeleted',
      );
      const again = await waitForFrame(
        frames,
        (f) => f.event === 'chatDone' && f.data.replyId !== done.data.replyId,
        'a second chatDone',
      );
      assert.ok(again.data.message, 'the regenerated reply ended without a message');
      await reply.waitFor({ state: 'detached' });
      await page.locator(`[data-testid="chat-message"][data-message-id="${again.data.message.messageId}"]`).waitFor();
      assert.equal(await page.getByTestId('chat-message').count(), 3, 'greeting, message and one reply');
      await page.waitForFunction(
        (n) => document.querySelector('[data-testid="credits-left"]')?.textContent.includes(String(n)),
        creditsBefore - 2,
      );

      // Save memories: saving shows from memorySaving to memorySaved.
      const panel = page.getByTestId('memories-panel');
      await panel.waitFor();
      const save = page.getByTestId('save-memories');
      await save.click();
      const saving = await waitForFrame(
        frames,
        (f) => f.event === 'memorySaving' && f.data.characterId === characterId,
        'memorySaving',
      );
      // memorySaved ends it; so does a reconnect (a memorySaved sent meanwhile is lost, and
      // the panel refetches the list instead).
      const ended = await waitForFrame(
        frames,
        (f) =>
          (f.event === 'memorySaved' && f.data.characterId === characterId) ||
          (f.event === 'hello' && f.at > saving.at),
        'memorySaved',
      );
      await page.waitForFunction(
        (label) => document.querySelector('[data-testid="save-memories"]')?.textContent === label,
        en.chat.saveMemories,
      );
      assert.equal(await save.isDisabled(), false);
      if (ended.event === 'memorySaved')
        assert.equal(await panel.getByTestId('memory-item').count(), ended.data.memories.length);
      else
        console.log(
          `# the socket reconnected while memories were saved: ${frames.received
            .filter((f) => f.event !== 'chatDelta')
            .map((f) => `${f.event}@${(f.at / 1000).toFixed(1)}s`)
            .join(', ')}`,
        );

      // Add one by hand: it shows at the top, as the user's own, and is still there after a reload.
      fact = `My favourite colour is teal (${RUN})`;
      await page.getByTestId('memory-input').fill(fact);
      await page.getByTestId('memory-add').click();
      const added = panel.getByTestId('memory-item').filter({ hasText: fact });
      await added.waitFor();
      assert.equal(await added.getAttribute('data-origin'), 'user');
      assert.ok(
        (await panel.getByTestId('memory-item').first().innerText()).includes(fact),
        'the new memory is not at the top',
      );
      // Notifications (the save's outcome) last 3 s; the screenshot shows the screen itself.
      await page.waitForFunction(
        () => document.querySelector('[role="status"][class*="item"], [role="alert"][class*="item"]') === null,
        null,
        { timeout: 6_000 },
      );
      await screenshot(page, 'chat-desktop');

      // Back: the home it came from, with the same cards and the same scroll position.
      await page.getByTestId('chat-back').click();
      await page.waitForURL((url) => url.pathname === '/');
      await waitForCardCount(page, homeIds.length);
      assert.deepEqual(await cardIds(page), homeIds);
      await page.waitForFunction((y) => Math.abs(window.scrollY - y) < 80, scrollY, { timeout: 5_000 });

      // The memory was stored: a fresh load of the chat lists it.
      await page.goto(`/chat/${characterId}`);
      await page.getByTestId('memories-panel').getByTestId('memory-item').filter({ hasText: fact }).waitFor();
      await page.getByTestId('chat-message').filter({ hasText: text }).waitFor();

      assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
      session = await context.cookies();
    } finally {
      await context.close();
    }

    // The same account on a phone (touch, 390×844): the list and the chat are separate
    // views; an open chat has no tab bar and keeps its input on screen; memories are a sheet.
    const phone = await openPage(browser, { viewport: MOBILE, mobile: true });
    try {
      await phone.context.addCookies(session);
      const { page: mobile } = phone;
      await mobile.goto('/chat');
      const item = mobile.locator(`[data-testid="chat-list-item"][data-character-id="${characterId}"]`);
      await item.waitFor();
      await mobile.getByTestId('tab-bar').waitFor();
      assert.equal(await mobile.getByTestId('conversation').count(), 0, 'a phone shows the list and a chat at once');
      await screenshot(mobile, 'chat-list-mobile');

      await item.locator('a').click();
      await mobile.waitForURL(`**/chat/${characterId}`);
      await mobile.getByTestId('chat-message').filter({ hasText: text }).waitFor();
      assert.equal(await mobile.getByTestId('chat-list').count(), 0);
      assert.equal(await mobile.getByTestId('tab-bar').count(), 0, 'the tab bar covers the chat on a phone');
      const inputBox = await mobile.getByTestId('chat-input').boundingBox();
      assert.ok(inputBox && inputBox.y + inputBox.height <= MOBILE.height, 'the input is below the screen');
      await screenshot(mobile, 'chat-mobile');

      await mobile.getByTestId('memories-toggle').click();
      await mobile.getByTestId('memories-panel').getByTestId('memory-item').filter({ hasText: fact }).waitFor();
      await screenshot(mobile, 'chat-mobile-memories');
      await mobile.keyboard.press('Escape');
      await mobile.getByTestId('memories-panel').waitFor({ state: 'detached' });

      // The user's own message can be edited in place (touch screens show the tools).
      const mineId = await mobile.getByTestId('chat-message').filter({ hasText: text }).getAttribute('data-message-id');
      const mine = mobile.locator(`[data-testid="chat-message"][data-message-id="${mineId}"]`);
      await mine.getByRole('button', { name: en.chat.edit }).click();
      const edited = 'Hi! My name is Sam and I live in the mountains.';
      await mine.getByRole('textbox', { name: en.chat.edit }).fill(edited);
      await mine.getByRole('button', { name: en.chat.save }).click();
      await mine.filter({ hasText: edited }).waitFor();
      assert.equal(await mobile.getByTestId('chat-message').filter({ hasText: text }).count(), 0);

      // Opened from the list, back returns to the list.
      await mobile.getByTestId('chat-back').click();
      await mobile.waitForURL((url) => url.pathname === '/chat');
      await item.waitFor();

      // Deleting the conversation asks first; then the list is empty.
      await item.getByTestId('chat-list-delete').click();
      const confirm = mobile.getByTestId('delete-chat-dialog');
      await confirm.waitFor();
      assert.ok((await confirm.innerText()).includes(en.chat.deleteChatTitle));
      await confirm.getByTestId('confirm-button').click();
      await mobile.getByTestId('chat-list-empty').waitFor();
      await confirm.waitFor({ state: 'detached' });
      assert.deepEqual(phone.errors, [], `uncaught page errors: ${phone.errors.join('; ')}`);
    } finally {
      await phone.context.close();
    }
  });

  it('asks a signed-out visitor to sign in', async () => {
    const { context, page, errors } = await openPage(browser, { viewport: DESKTOP });
    try {
      await page.goto('/chat');
      await page.getByTestId('chat-signed-out').waitFor();
      await page.getByTestId('login-modal').waitFor();
      assert.equal(await page.getByTestId('conversation').count(), 0);
      assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
    } finally {
      await context.close();
    }
  });
});

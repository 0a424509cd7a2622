// Voice calls (issue 32) end to end, against the real server with its embedded recogniser,
// model and synthesiser (scripts/e2e.mjs): Chromium's fake microphone plays a sentence that
// espeak-ng says (a WAV made here, 16 kHz mono, played once). A free user with coins opens a
// one-to-one chat, presses Call, sees what each answer costs, starts the call; the words the
// server recognised appear in the transcript (their word error rate against the sentence is
// logged), the character's answer plays through the call's audio element, End call shows what
// the call cost; both turns are then in the chat's history and the balance moved by exactly
// what the screen said. On a desktop and on a phone.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DESKTOP, launchBrowser, MOBILE, openPage, OUTPUT_DIR, screenshot } from './support/browser.mjs';
import { amoraAdmin } from './support/operator.mjs';
import { signInByMail } from './support/sign-in.mjs';

const call = JSON.parse(readFileSync(new URL('../public/locales/en/call.json', import.meta.url), 'utf8'));
const RUN = Date.now().toString(36);
/** What the user says. */
const SENTENCE = 'Hello, how are you today? Tell me about your evening.';
/** Recognition, a reply and its first spoken sentence on a small, shared machine. */
const TURN_TIMEOUT_MS = 180_000;

/**
 * The sentence as a WAV the fake microphone can play: espeak-ng's Klatt voice, resampled to
 * 16 kHz mono 16-bit, with a second of silence before (the call is still opening) and three
 * after (the end of the turn is 700 ms of silence).
 */
function makeSentenceWav() {
  const dir = join(OUTPUT_DIR, 'call');
  mkdirSync(dir, { recursive: true });
  const raw = join(dir, 'sentence-espeak.wav');
  const wav = join(dir, 'sentence-16k.wav');
  execFileSync('espeak-ng', ['-v', 'en-us+klatt', '-s', '150', '-w', raw, SENTENCE]);
  execFileSync('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', wav, 'pad', '1', '3']);
  return wav;
}

/** Word error rate of `heard` against `said`: word-level edit distance over the words said. */
function wordErrorRate(said, heard) {
  const words = (text) =>
    text
      .toLowerCase()
      .replace(/[^a-z' ]+/g, ' ')
      .split(/\s+/)
      .filter(Boolean);
  const ref = words(said);
  const hyp = words(heard);
  let row = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i += 1) {
    const next = [i];
    for (let j = 1; j <= hyp.length; j += 1)
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    row = next;
  }
  return row[hyp.length] / ref.length;
}

let browser;
before(async () => {
  const wav = makeSentenceWav();
  browser = await launchBrowser({
    args: [
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      // Played once (not looped): after the sentence the microphone hears silence.
      `--use-file-for-fake-audio-capture=${wav}%noloop`,
    ],
  });
});
after(async () => {
  await browser?.close();
});

/** Every frame of the page's sockets to /lust/api/ws, both ways, parsed. */
function recordFrames(page) {
  const frames = { received: [], sent: [] };
  page.on('websocket', (socket) => {
    if (!new URL(socket.url()).pathname.endsWith('/lust/api/ws')) return;
    socket.on('framereceived', ({ payload }) => frames.received.push(JSON.parse(String(payload))));
    socket.on('framesent', ({ payload }) => frames.sent.push(JSON.parse(String(payload))));
  });
  return frames;
}

/**
 * The balance in tokens as the user's socket last heard it (`hello`, `tokenCount`): a free
 * user's header shows no balance, so the journey reads what the app was told.
 */
function socketBalance(frames) {
  const last = frames.received.filter((f) => f.event === 'hello' || f.event === 'tokenCount').at(-1);
  return last ? last.data.coin / 10 : null;
}

async function balanceBecomes(frames, want, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  while (socketBalance(frames) !== want) {
    if (Date.now() > until) throw new Error(`the balance stayed ${socketBalance(frames)}, not ${want}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function journey(name, options) {
  const { context, page, errors } = await openPage(browser, options);
  const phone = options.mobile === true;
  // What the call's audio element played: each part that started and that ended.
  await context.addInitScript(() => {
    window.__callAudio = { playing: [], ended: [] };
    for (const type of ['playing', 'ended'])
      document.addEventListener(
        type,
        (event) => {
          const el = event.target;
          if (el instanceof HTMLMediaElement && el.dataset.testid === 'call-audio')
            window.__callAudio[type].push({ src: el.currentSrc, duration: el.duration });
        },
        true,
      );
  });
  try {
    const frames = recordFrames(page);
    await signInByMail(page, `call-${name}-${RUN}@example.com`);
    await page.goto('/setting');
    const userNo = (await page.getByTestId('settings-user-no').innerText()).trim();
    // A free user (answers also use free messages) with coins for the voice: 100 coins, shown as 10.
    await amoraAdmin('credit', userNo, '100');
    await balanceBecomes(frames, 10);

    // A one-to-one chat with an unlocked catalogue character.
    await page.goto('/');
    const card = page.locator('[data-testid="character-card"]:not(:has([data-testid="card-lock"]))').first();
    await card.waitFor({ timeout: 30_000 });
    const characterId = await card.getAttribute('data-character-id');
    await page.goto(`/chat/${characterId}`);
    await page.locator('[data-testid="chat-message"][data-speaker="character"]').first().waitFor({ timeout: 30_000 });
    const historyBefore = await page.getByTestId('chat-message').count();

    // Call: the screen says what an answer costs before anything starts.
    await page.getByTestId('call-open').click();
    const screen = page.getByTestId('call-screen');
    await screen.waitFor();
    const costText = await page.getByTestId('call-cost-answer').innerText();
    assert.equal(costText, call.cost.replace('{{tokens}}', '0.2'));
    const perAnswer = Number(/([\d.]+)/.exec(costText)[1]);
    assert.ok((await page.getByTestId('call-cost-free').innerText()).length > 0, 'no free-message note');
    await screenshot(page, `call-ready-${name}`);
    const balanceBefore = socketBalance(frames);
    assert.equal(balanceBefore, 10);

    // Start: the microphone opens, the call too, and audio goes up.
    await page.getByTestId('call-start').click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="call-screen"]')?.dataset.phase !== 'starting',
      null,
      {
        timeout: 30_000,
      },
    );
    assert.notEqual(await screen.getAttribute('data-phase'), 'failed', await screen.innerText());
    const started = frames.received.find((f) => f.event === 'callStarted');
    assert.ok(started, 'no callStarted');
    assert.equal(started.data.coinPerAnswer / 10, perAnswer, 'the server charges what the screen said');

    // The user's words, as recognised.
    const userLine = page.locator('[data-testid="call-line"][data-speaker="user"]').first();
    await userLine.waitFor({ timeout: TURN_TIMEOUT_MS });
    const heard = await userLine.getByTestId('call-line-text').innerText();
    const wer = wordErrorRate(SENTENCE, heard);
    const audioFrames = frames.sent.filter((f) => f.action === 'callAudio');
    console.log(
      `call (${name}): said "${SENTENCE}"; heard "${heard}"; WER ${wer.toFixed(3)}; ${audioFrames.length} audio frames sent`,
    );
    assert.ok(audioFrames.length > 20, `only ${audioFrames.length} audio frames`);
    assert.ok(
      audioFrames.every((f) => f.data.audio.length === 2136),
      'a frame is not 100 ms of μ-law',
    );
    assert.ok(wer < 1, `nothing of the sentence was recognised ("${heard}")`);

    // Her answer: written into the transcript and played through the call's audio element.
    await page
      .locator('[data-testid="call-line"][data-speaker="character"]')
      .first()
      .waitFor({ timeout: TURN_TIMEOUT_MS });
    await page.waitForFunction(() => window.__callAudio.playing.length > 0, null, { timeout: TURN_TIMEOUT_MS });
    await screenshot(page, `call-speaking-${name}`);
    await page.waitForFunction(() => window.__callAudio.ended.length > 0, null, { timeout: TURN_TIMEOUT_MS });
    const played = await page.evaluate(() => window.__callAudio);
    assert.ok(played.ended[0].duration > 0.2, `the part played has no length: ${JSON.stringify(played.ended[0])}`);
    console.log(
      `call (${name}): ${played.ended.length} part(s) played, the first ${played.ended[0].duration.toFixed(2)} s`,
    );
    // Until she has finished (the part marked last), then End call.
    await page.waitForFunction(
      () => ['listening', 'hearing'].includes(document.querySelector('[data-testid="call-screen"]')?.dataset.phase),
      null,
      { timeout: TURN_TIMEOUT_MS },
    );
    const reply = await page
      .locator('[data-testid="call-line"][data-speaker="character"]')
      .first()
      .getByTestId('call-line-text')
      .innerText();
    await page.getByTestId('call-end').click();
    const summary = page.getByTestId('call-summary-cost');
    await summary.waitFor({ timeout: 30_000 });
    const coinSpent = Number(await summary.getAttribute('data-coin-spent'));
    const answers = Number(await summary.getAttribute('data-answers'));
    assert.ok(answers >= 1, `answers ${answers}`);
    assert.equal(coinSpent, answers * started.data.coinPerAnswer);
    assert.ok((await summary.innerText()).includes(String(coinSpent / 10)), await summary.innerText());
    await screenshot(page, `call-ended-${name}`);

    // Both turns are in the chat, and the balance moved by what the screen said.
    await page.getByTestId('call-done').click();
    await screen.waitFor({ state: 'detached' });
    const userMessage = page.locator('[data-testid="chat-message"][data-speaker="user"]').filter({ hasText: heard });
    await userMessage.first().waitFor({ timeout: 30_000 });
    assert.ok((await page.getByTestId('chat-message').count()) >= historyBefore + 2, 'the turns are not in the chat');
    const lastCharacter = page.locator('[data-testid="chat-message"][data-speaker="character"]').last();
    const replyStart = reply.slice(0, 20);
    assert.ok((await lastCharacter.innerText()).includes(replyStart), `the reply "${reply}" is not the chat's last`);
    const expected = Math.round((balanceBefore - coinSpent / 10) * 10) / 10;
    await balanceBecomes(frames, expected);
    console.log(`call (${name}): ${answers} answer(s), balance ${balanceBefore} → ${expected}`);
    await screenshot(page, `call-history-${name}`);
    if (phone) assert.ok(await page.getByTestId('chat-back').isVisible());
    assert.deepEqual(errors, [], `uncaught page errors: ${errors.join('; ')}`);
  } finally {
    await context.close();
  }
}

describe('voice calls', () => {
  it('a call: cost shown, the user heard, her answer played, both turns in the chat, balance moved (desktop)', () =>
    journey('desktop', { viewport: DESKTOP }));
  it('a call: cost shown, the user heard, her answer played, both turns in the chat, balance moved (phone)', () =>
    journey('phone', { viewport: MOBILE, mobile: true }));
});

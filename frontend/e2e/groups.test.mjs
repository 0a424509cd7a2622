// Issue 31, against the real server and its embedded model (scripts/e2e.mjs), on a desktop and
// on a phone: a group of three catalogue characters is created through the UI; a message
// naming one of them (natural order) gets replies from two, the named one first; "Let them
// talk" writes at most its cap of replies; a muted member stays silent; and the group, with
// its messages, survives a reload.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DESKTOP, launchBrowser, MOBILE, openPage, screenshot } from './support/browser.mjs';
import { frameAfter as waitForFrame, recordFrames } from './support/frames.mjs';
import { amoraAdmin } from './support/operator.mjs';
import { signInByMail } from './support/sign-in.mjs';

const en = JSON.parse(readFileSync(new URL('../public/locales/en/translation.json', import.meta.url), 'utf8'));
const RUN = Date.now().toString(36);
/** A round of two replies of a small model on a small machine, with room to spare. */
const ROUND_TIMEOUT_MS = 180_000;
/** "Let them talk" is kept short: two replies at most. */
const TALK_CAP = 2;

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** The words of a name as the server's natural order matches them (`domain::group::turns::words`). */
const words = (text) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter(Boolean);

/** Three catalogue characters whose names share no word, so naming one names only it. */
async function pickThree(page) {
  const items = page.getByTestId('group-picker-item');
  await items.first().waitFor();
  const offered = await items.evaluateAll((buttons) =>
    buttons.map((b) => ({ characterId: b.dataset.characterId, name: b.dataset.characterName })),
  );
  const chosen = [];
  for (const candidate of offered) {
    const taken = chosen.flatMap((c) => words(c.name));
    if (words(candidate.name).some((w) => taken.includes(w))) continue;
    chosen.push(candidate);
    if (chosen.length === 3) break;
  }
  assert.equal(chosen.length, 3, `three characters with distinct names among ${JSON.stringify(offered)}`);
  return chosen;
}

/** The frames of one round: from `mark` to its groupIdle, which it waits for. */
async function round(frames, mark, groupId) {
  const idle = await waitForFrame(
    frames,
    mark,
    (f) => f.event === 'groupIdle' && f.data.groupId === groupId,
    'groupIdle',
    ROUND_TIMEOUT_MS,
  );
  const end = frames.indexOf(idle);
  const of = (event) => frames.slice(mark, end).filter((f) => f.event === event && f.data.groupId === groupId);
  const errors = of('groupError');
  assert.deepEqual(
    errors.map((f) => f.data),
    [],
    'the round failed',
  );
  return {
    idle: idle.data,
    done: of('groupDone').filter((f) => f.data.message !== null),
    deltas: of('groupDelta'),
  };
}

/** The members panel: open (a sheet on a phone), or closed again. */
async function openMembers(page) {
  const panel = page.getByTestId('group-members-panel');
  if ((await panel.count()) === 0) await page.getByTestId('group-members-toggle').click();
  await panel.waitFor();
  return panel;
}

async function closeMembersOnPhone(page, phone) {
  if (!phone) return;
  await page.getByTestId('group-members-close').click();
  await page.getByTestId('group-members-panel').waitFor({ state: 'detached' });
}

/** Sets a member's talkativeness through its select and waits until the server's answer shows it. */
async function setTalkativeness(page, characterId, value) {
  const select = page
    .locator(`[data-testid="group-member"][data-character-id="${characterId}"]`)
    .getByTestId('group-member-talkativeness');
  await select.selectOption(String(value));
  await page.waitForFunction(
    ({ id, v }) => {
      const el = document.querySelector(
        `[data-testid="group-member"][data-character-id="${id}"] [data-testid="group-member-talkativeness"]`,
      );
      return el && !el.disabled && el.value === v;
    },
    { id: characterId, v: String(value) },
  );
}

async function send(page, text) {
  const input = page.getByTestId('chat-input');
  await input.fill(text);
  await input.press('Enter');
}

/** The speaker names of the last `n` member bubbles, oldest first. */
async function lastSpeakerNames(page, n) {
  const names = await page.getByTestId('group-speaker-name').allInnerTexts();
  return names.slice(-n).map((name) => name.trim());
}

async function journey({ viewport, phone, label }) {
  const { context, page, errors } = await openPage(browser, { viewport, mobile: phone });
  const timings = {};
  const started = Date.now();
  const lap = (what) => {
    timings[what] = Math.round((Date.now() - started) / 100) / 10;
  };
  try {
    const frames = recordFrames(page);
    await signInByMail(page, `groups-${label}-${RUN}@example.com`);
    // Five or six replies: more than the free messages the journeys' server gives a day.
    await page.goto('/setting');
    await amoraAdmin('set-vip', (await page.getByTestId('settings-user-no').innerText()).trim(), '1');

    // The chat list offers "New group"; the dialog picks three catalogue characters.
    await page.goto('/chat');
    await page.getByTestId('new-group').click();
    const dialog = page.getByTestId('create-group-dialog');
    await dialog.waitFor();
    const [first, named, quiet] = await pickThree(page);
    for (const c of [first, named, quiet])
      await dialog.locator(`[data-testid="group-picker-item"][data-character-id="${c.characterId}"]`).click();
    await dialog.getByTestId('group-name-input').fill(`Trio ${RUN}`);
    await dialog.getByTestId('group-talk-cap-input').fill(String(TALK_CAP));
    assert.equal(await dialog.getByTestId('group-activation-natural').isChecked(), true, 'natural is the default');
    await screenshot(page, `groups-${label}-create`);
    await dialog.getByTestId('group-create-submit').click();
    await page.waitForURL(/\/group\/[^/]+$/);
    const groupId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
    await page.getByTestId('group-conversation').waitFor();
    assert.equal((await page.getByTestId('group-name').innerText()).trim(), `Trio ${RUN}`);
    lap('created');

    // Talkativeness makes the natural order certain: the named one first, then `first`
    // (always speaks up), never `quiet` (only when named).
    await openMembers(page);
    assert.equal(await page.getByTestId('group-member').count(), 3);
    await setTalkativeness(page, first.characterId, 100);
    await setTalkativeness(page, quiet.characterId, 0);
    await screenshot(page, `groups-${label}-members`);
    await closeMembersOnPhone(page, phone);

    // What a message costs is shown before sending: three unmuted members, three replies at most.
    assert.equal(await page.getByTestId('group-cost').getAttribute('data-most'), '3');

    // A message naming one of them: two replies, the named one first.
    const firstName = named.name.split(/\s+/)[0];
    const question = `Hey ${firstName}, what would you do on a rainy afternoon?`;
    for (const other of [first, quiet])
      assert.ok(!words(question).some((w) => words(other.name).includes(w)), `${other.name} is named too`);
    let mark = frames.length;
    await send(page, question);
    await page.getByTestId('group-message').filter({ hasText: question }).waitFor();
    const named1 = await round(frames, mark, groupId);
    lap('named round');
    assert.deepEqual(
      named1.done.map((f) => f.data.characterId),
      [named.characterId, first.characterId],
      'replies from the named one, then the talkative one',
    );
    assert.equal(named1.deltas[0]?.data.characterId, named.characterId, 'the named one streams first');
    assert.equal(named1.idle.replies, 2);
    assert.deepEqual(await lastSpeakerNames(page, 2), [named.name, first.name]);
    for (const f of named1.done)
      await page.locator(`[data-testid="group-message"][data-message-id="${f.data.message.messageId}"]`).waitFor();
    await screenshot(page, `groups-${label}-replies`);

    // "Let them talk": at most the cap of replies, then the characters wait.
    mark = frames.length;
    await page.getByTestId('group-talk').click();
    const talk = await round(frames, mark, groupId);
    lap('let them talk');
    assert.ok(talk.done.length >= 1 && talk.done.length <= TALK_CAP, `${talk.done.length} replies, cap ${TALK_CAP}`);
    assert.ok(talk.idle.replies <= TALK_CAP);
    await page.waitForFunction(() => !document.querySelector('[data-testid="group-talk"]')?.disabled);

    // A muted member stays silent, even the one that always speaks up.
    await openMembers(page);
    const firstRow = page.locator(`[data-testid="group-member"][data-character-id="${first.characterId}"]`);
    await firstRow.getByTestId('group-member-mute').click();
    await page.waitForFunction(
      (id) =>
        document.querySelector(`[data-testid="group-member"][data-character-id="${id}"]`)?.dataset.muted === 'true',
      first.characterId,
    );
    await screenshot(page, `groups-${label}-muted`);
    await closeMembersOnPhone(page, phone);
    assert.equal(await page.getByTestId('group-cost').getAttribute('data-most'), '2', 'a muted member costs nothing');
    mark = frames.length;
    await send(page, 'What a day it has been. Tell me more about it.');
    const muted = await round(frames, mark, groupId);
    lap('muted round');
    assert.ok(muted.done.length >= 1, 'somebody answers');
    assert.ok(
      [...muted.done, ...muted.deltas].every((f) => f.data.characterId !== first.characterId),
      `the muted member spoke: ${JSON.stringify(muted.done.map((f) => f.data.characterId))}`,
    );

    if (!phone) {
      // Any order lets the user pick who speaks next, even the one that only speaks when named.
      mark = frames.length;
      await page.getByTestId('group-pick').selectOption(quiet.characterId);
      const picked = await round(frames, mark, groupId);
      lap('pick');
      assert.deepEqual(
        picked.done.map((f) => f.data.characterId),
        [quiet.characterId],
      );
    }

    // A reload: the group and every message are still there, oldest at the top.
    const before = await page.getByTestId('group-message').evaluateAll((rows) => rows.map((r) => r.dataset.messageId));
    await page.reload();
    await page.getByTestId('group-conversation').waitFor();
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="group-message"]').length >= n,
      before.length,
    );
    const after = await page.getByTestId('group-message').evaluateAll((rows) => rows.map((r) => r.dataset.messageId));
    assert.deepEqual(after, before, 'the messages after a reload');
    assert.equal((await page.getByTestId('group-name').innerText()).trim(), `Trio ${RUN}`);
    await screenshot(page, `groups-${label}-reloaded`);

    // The group is in the chat list (beside the chat on a desktop; the list page on a phone).
    if (phone) {
      await page.getByTestId('group-back').click();
      await page.waitForURL((url) => url.pathname === '/chat');
    }
    const listed = page.locator(`[data-testid="group-list-item"][data-group-id="${groupId}"]`);
    await listed.waitFor();
    assert.match(await listed.innerText(), new RegExp(`Trio ${RUN}`));
    await screenshot(page, `groups-${label}-list`);
    lap('reloaded');
    assert.equal(en.groups.newGroup, 'New group');
    assert.deepEqual(errors, []);
    console.log(`groups ${label}: ${JSON.stringify(timings)} (seconds from sign-in)`);
  } finally {
    await context.close();
  }
}

describe('group chats (issue 31)', () => {
  it('on a desktop: create, named reply order, let them talk, mute, pick, reload', async () => {
    await journey({ viewport: DESKTOP, phone: false, label: 'desktop' });
  });

  it('on a phone: create, named reply order, let them talk, mute, reload', async () => {
    await journey({ viewport: MOBILE, phone: true, label: 'mobile' });
  });
});

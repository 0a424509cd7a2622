// Issue 31, against the real server and its embedded model (scripts/e2e.mjs), on a desktop and
// on a phone: a group of three catalogue characters is created through the UI; a message
// naming one of them (natural order) gets replies from two, the named one first; "Let them
// talk" writes at most its cap of replies; a muted member stays silent; the newest reply is
// written again and its versions switched with the arrows, then continued; Stop ends a
// reply mid-way and the composer works after it; the user edits one message and deletes
// another; the group, with its messages as changed, survives a reload; and a SillyTavern
// group chat export (e2e/fixtures/cafe-afternoon.jsonl) imports as a group with its history.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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
/** A SillyTavern group chat export: Sofia (Marin) and Hana (Mori) of the catalogue, and the user. */
const EXPORT_PATH = fileURLToPath(new URL('./fixtures/cafe-afternoon.jsonl', import.meta.url));
/** What the import keeps of it, in order: the metadata and system lines are passed over. */
const EXPORTED = readFileSync(EXPORT_PATH, 'utf8')
  .split('\n')
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line))
  .filter((line) => typeof line.mes === 'string' && !line.is_system);

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

/** The bubble's text as the reader sees it (italics drop their asterisks). */
const plain = (text) => text.replace(/[*_]/g, '').replace(/\s+/g, ' ').trim();

const messageRow = (page, messageId) => page.locator(`[data-testid="group-message"][data-message-id="${messageId}"]`);

async function bubbleText(page, messageId) {
  return plain(await messageRow(page, messageId).getByTestId('message-bubble').innerText());
}

async function expectSwipeCount(page, text) {
  await page.waitForFunction((t) => document.querySelector('[data-testid="swipe-count"]')?.textContent === t, text, {
    timeout: 10_000,
  });
}

/** The frame of `event` after `mark` that `predicate` accepts, within a round's time. */
const groupFrame = (frames, mark, event, groupId, predicate = () => true) =>
  waitForFrame(
    frames,
    mark,
    (f) => f.event === event && f.data.groupId === groupId && predicate(f.data),
    event,
    ROUND_TIMEOUT_MS,
  );

/** The speaker names of the last `n` member bubbles, oldest first. */
async function lastSpeakerNames(page, n) {
  const names = await page.getByTestId('group-speaker-name').allInnerTexts();
  return names.slice(-n).map((name) => name.trim());
}

/**
 * "Import" in the chat list: the export's speakers preselect the catalogue characters of
 * those names; on a desktop a wrong member first makes the server name the speaker nobody
 * answers to. The new group opens with the history in order, each line its speaker's.
 */
async function importExport(page, { phone, label, fromGroupId }) {
  // "New group" offers the import instead.
  await page.getByTestId('new-group').click();
  await page.getByTestId('create-group-dialog').getByTestId('group-import-open').click();
  const dialog = page.getByTestId('import-group-dialog');
  await dialog.waitFor();
  await dialog.getByTestId('group-import-file').setInputFiles(EXPORT_PATH);
  await dialog.getByTestId('group-import-summary').waitFor();
  assert.match(await dialog.getByTestId('group-import-summary').innerText(), /\b5\b/, 'five messages are kept');
  assert.equal(await dialog.getByTestId('group-name-input').inputValue(), 'cafe-afternoon');
  // Both speakers are matched to a character once the characters are loaded.
  await page.waitForFunction(() => {
    const speakers = [...document.querySelectorAll('[data-testid="group-import-speaker"]')];
    return speakers.length === 2 && speakers.every((s) => s.dataset.matched);
  });
  const matched = await dialog
    .getByTestId('group-import-speaker')
    .evaluateAll((rows) => rows.map((r) => r.dataset.matched));
  const picked = async (id) =>
    dialog.locator(`[data-testid="group-picker-item"][data-character-id="${id}"]`).getAttribute('aria-pressed');
  for (const id of matched) assert.equal(await picked(id), 'true', `${id} is not preselected`);
  const [sofiaId, hanaId] = matched;
  await screenshot(page, `groups-${label}-import`);

  if (!phone) {
    // Hana swapped for somebody else: the server names the speaker nobody answers to.
    const other = await dialog
      .getByTestId('group-picker-item')
      .evaluateAll(
        (items, taken) => items.map((i) => i.dataset.characterId).find((id) => !taken.includes(id)),
        matched,
      );
    await dialog.locator(`[data-testid="group-picker-item"][data-character-id="${hanaId}"]`).click();
    await dialog.locator(`[data-testid="group-picker-item"][data-character-id="${other}"]`).click();
    await dialog.getByTestId('group-import-submit').click();
    const error = dialog.getByTestId('group-import-error');
    await error.waitFor();
    assert.equal(
      (await error.innerText()).trim(),
      en.groups.import.errors.speaker.replaceAll('{{name}}', 'Hana'),
      'the refusal names the speaker',
    );
    await screenshot(page, `groups-${label}-import-refused`);
    await dialog.locator(`[data-testid="group-picker-item"][data-character-id="${other}"]`).click();
    await dialog.locator(`[data-testid="group-picker-item"][data-character-id="${hanaId}"]`).click();
  }

  await dialog.getByTestId('group-import-submit').click();
  // The new group opens (on a desktop, in place of the one open before).
  await page.waitForURL((url) => /\/group\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith(`/${fromGroupId}`));
  const importedId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
  await page.locator(`[data-testid="group-conversation"][data-group-id="${importedId}"]`).waitFor();
  assert.equal((await page.getByTestId('group-name').innerText()).trim(), 'cafe-afternoon');
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid="group-message"]').length === n,
    EXPORTED.length,
  );
  const shown = await page.getByTestId('group-message').evaluateAll((rows) =>
    rows.map((r) => ({
      speaker: r.dataset.speaker,
      text: r.querySelector('[data-testid="message-bubble"]').textContent,
    })),
  );
  const speakerIds = { Sofia: sofiaId, Hana: hanaId };
  assert.deepEqual(
    shown.map((m) => ({ speaker: m.speaker, text: plain(m.text) })),
    EXPORTED.map((line) => ({ speaker: line.is_user ? 'user' : speakerIds[line.name], text: plain(line.mes) })),
    'the history, in order, each line its speaker’s',
  );
  await screenshot(page, `groups-${label}-imported`);
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

    // Regenerate: the newest reply leaves (kept as a version), a new one streams and arrives
    // with its versions, "2/2"; the arrows switch between the two texts in place.
    await page.getByTestId('group-regenerate').waitFor();
    const oldReply = await page
      .getByTestId('group-message')
      .last()
      .evaluate((row) => row.dataset.messageId);
    const oldText = await bubbleText(page, oldReply);
    mark = frames.length;
    await page.getByTestId('group-regenerate').click();
    await groupFrame(frames, mark, 'groupMessageDeleted', groupId, (d) => d.messageIds.includes(oldReply));
    const regenerated = await round(frames, mark, groupId);
    lap('regenerate');
    assert.equal(regenerated.done.length, 1, 'one new version');
    const second = regenerated.done[0].data.message;
    assert.notEqual(second.messageId, oldReply);
    assert.deepEqual(second.swipes, { index: 1, count: 2 });
    await messageRow(page, oldReply).waitFor({ state: 'detached' });
    await messageRow(page, second.messageId).waitFor();
    await expectSwipeCount(page, '2/2');
    mark = frames.length;
    await page.getByTestId('swipe-previous').click();
    const back = await groupFrame(frames, mark, 'groupMessage', groupId, (d) => d.message.swipes?.index === 0);
    assert.equal(back.data.message.messageId, second.messageId, 'a version is shown in the same message');
    assert.equal(plain(back.data.message.content), oldText, 'the first version is the old reply');
    await expectSwipeCount(page, '1/2');
    await page.waitForFunction(
      ({ id, text }) =>
        document
          .querySelector(`[data-message-id="${id}"] [data-testid="message-bubble"]`)
          ?.textContent.replace(/[*_]/g, '')
          .replace(/\s+/g, ' ')
          .trim() === text,
      { id: second.messageId, text: oldText },
    );
    await screenshot(page, `groups-${label}-versions`);
    mark = frames.length;
    await page.getByTestId('swipe-next').click();
    const forth = await groupFrame(frames, mark, 'groupMessage', groupId, (d) => d.message.swipes?.index === 1);
    assert.equal(forth.data.message.content, second.content);
    await expectSwipeCount(page, '2/2');
    assert.equal(await bubbleText(page, second.messageId), plain(second.content));

    // Continue: the same reply grows, streaming under its own id; its start stays.
    mark = frames.length;
    await page.getByTestId('group-continue').click();
    const continuedRound = await round(frames, mark, groupId);
    lap('continue');
    const continued = continuedRound.done[0]?.data.message;
    assert.ok(continued, 'the continuation stored nothing');
    assert.equal(continued.messageId, second.messageId);
    assert.ok(
      continued.content.startsWith(second.content.trim()) && continued.content.length > second.content.length,
      `not a continuation: ${JSON.stringify([second.content, continued.content])}`,
    );
    assert.ok(
      continuedRound.deltas.length > 0 && continuedRound.deltas.every((f) => f.data.replyId === second.messageId),
      'the continuation streams under the reply’s id',
    );
    await page.waitForFunction(
      ({ id, n }) =>
        (document.querySelector(`[data-message-id="${id}"] [data-testid="message-bubble"]`)?.textContent.length ?? 0) >=
        n,
      { id: second.messageId, n: plain(continued.content).length },
    );
    assert.equal(await bubbleText(page, second.messageId), plain(continued.content));
    await screenshot(page, `groups-${label}-continued`);

    // Stop mid-reply: the round ends, the reply keeps its text so far (or, stopped before
    // any, leaves nothing), nobody speaks after it, and the composer sends again.
    const quietFirst = quiet.name.split(/\s+/)[0];
    const stopQuestion = `${firstName} and ${quietFirst}, tell me a long story about the sea, please.`;
    mark = frames.length;
    await send(page, stopQuestion);
    const stopMine = await groupFrame(frames, mark, 'groupMessage', groupId, (d) => d.message.content === stopQuestion);
    await groupFrame(frames, mark, 'groupDelta', groupId);
    await page.getByTestId('chat-stop').click();
    const stoppedIdle = await groupFrame(frames, mark, 'groupIdle', groupId);
    const stoppedEnd = frames.indexOf(stoppedIdle);
    const stoppedFrames = frames.slice(mark, stoppedEnd).filter((f) => f.data?.groupId === groupId);
    assert.deepEqual(
      stoppedFrames.filter((f) => f.event === 'groupError').map((f) => f.data),
      [],
      'the stop was refused',
    );
    const stoppedDone = stoppedFrames.filter((f) => f.event === 'groupDone');
    const cancelled = stoppedDone.find((f) => f.data.finishReason === 'cancelled');
    assert.ok(cancelled, `no reply was cut by the stop: ${JSON.stringify(stoppedDone.map((f) => f.data))}`);
    assert.equal(stoppedDone.indexOf(cancelled), stoppedDone.length - 1, 'somebody spoke after the stop');
    if (cancelled.data.message) {
      assert.ok(cancelled.data.message.content.trim(), 'a stopped reply kept without text');
      await messageRow(page, cancelled.data.message.messageId).waitFor();
    } else await messageRow(page, cancelled.data.replyId).waitFor({ state: 'detached' });
    await page.getByTestId('group-streaming').waitFor({ state: 'detached' });
    await page.getByTestId('group-waiting').waitFor({ state: 'detached' });
    await page.getByTestId('chat-input').fill('Thanks, that will do.');
    assert.equal(await page.getByTestId('chat-send').isEnabled(), true, 'the composer sends again after a stop');
    await page.getByTestId('chat-input').fill('');
    await screenshot(page, `groups-${label}-stopped`);
    lap('stop');

    // The user's own messages: one edited in place, the stopped question deleted.
    const edited = `Hey ${firstName}, what would you do on a sunny afternoon?`;
    const mine = messageRow(
      page,
      await page.getByTestId('group-message').filter({ hasText: question }).first().getAttribute('data-message-id'),
    );
    await mine.getByTestId('group-message-edit').click();
    await mine.getByRole('textbox', { name: en.chat.edit }).fill(edited);
    await mine.getByRole('button', { name: en.chat.save }).click();
    await mine.filter({ hasText: edited }).waitFor();
    await screenshot(page, `groups-${label}-edited`);
    const doomed = messageRow(page, stopMine.data.message.messageId);
    await doomed.getByTestId('group-message-delete').click();
    const confirm = page.getByTestId('group-delete-message-dialog');
    await confirm.waitFor();
    await screenshot(page, `groups-${label}-delete`);
    await confirm.getByTestId('confirm-button').click();
    await doomed.waitFor({ state: 'detached' });
    lap('edit and delete');

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
    await page.getByTestId('group-message').filter({ hasText: edited }).waitFor();
    assert.equal(await page.getByTestId('group-message').filter({ hasText: question }).count(), 0, 'the edit was lost');
    assert.equal(await messageRow(page, stopMine.data.message.messageId).count(), 0, 'the deleted message is back');
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

    await importExport(page, { phone, label, fromGroupId: groupId });
    lap('import');
    assert.equal(en.groups.newGroup, 'New group');
    assert.deepEqual(errors, []);
    console.log(`groups ${label}: ${JSON.stringify(timings)} (seconds from sign-in)`);
  } finally {
    await context.close();
  }
}

describe('group chats (issue 31)', () => {
  it('on a desktop: create, named reply order, let them talk, mute, pick, versions, continue, stop, edit, delete, reload, import', async () => {
    await journey({ viewport: DESKTOP, phone: false, label: 'desktop' });
  });

  it('on a phone: create, named reply order, let them talk, mute, versions, continue, stop, edit, delete, reload, import', async () => {
    await journey({ viewport: MOBILE, phone: true, label: 'mobile' });
  });
});

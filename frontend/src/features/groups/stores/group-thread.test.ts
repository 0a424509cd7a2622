import { beforeEach, describe, expect, it } from 'vitest';
import {
  continuedGroupMessageId,
  EMPTY_GROUP_THREAD,
  groupReplyControls,
  groupSwipeControls,
  groupThreadReducer,
  mergeGroupMessages,
  placeGroupDelta,
  type GroupThreadAction,
  type GroupThreadState,
} from '@/features/groups/stores/group-thread';
import type { GroupMessage, GroupMessagePage } from '@/lib/api-types';

const GROUP = 'g1';
const MIA = 'gf-001';
const SOFIA = 'gf-002';
// Real ids exceed Number.MAX_SAFE_INTEGER; ordering them as numbers would be wrong.
const id = (n: number) => `17638100000000${String(n).padStart(5, '0')}`;

function message(n: number, characterId: string | null, content = `m${n}`): GroupMessage {
  return { messageId: id(n), characterId, content, createdAt: 1_763_810_000_000 + n, swipes: null };
}

/** The server sends newest first. */
const page = (messages: GroupMessage[], hasMore = false): GroupMessagePage => ({
  messages: [...messages].reverse(),
  hasMore,
});

const run = (actions: GroupThreadAction[], from: GroupThreadState = EMPTY_GROUP_THREAD) =>
  actions.reduce(groupThreadReducer, from);
const contents = (state: GroupThreadState) => state.messages.map((m) => m.content);

/** Where the next delta of each reply starts, as the server counts (cleared before each test). */
const written = new Map<string, number>();
beforeEach(() => written.clear());
const delta = (characterId: string, replyId: string, text: string): GroupThreadAction => {
  const offset = written.get(replyId) ?? 0;
  written.set(replyId, offset + text.length);
  return { event: 'groupDelta', data: { groupId: GROUP, characterId, replyId, delta: text, offset } };
};
const done = (characterId: string, replyId: string, stored: GroupMessage | null): GroupThreadAction => ({
  event: 'groupDone',
  data: { groupId: GROUP, characterId, replyId, message: stored, finishReason: 'stop', cut: false },
});
const idle = (replies: number): GroupThreadAction => ({ event: 'groupIdle', data: { groupId: GROUP, replies } });

describe('mergeGroupMessages', () => {
  it('keeps one message per id, oldest first, the incoming copy winning', () => {
    const merged = mergeGroupMessages(
      [message(1, MIA), message(3, null)],
      [message(3, null, 'again'), message(2, SOFIA)],
    );
    expect(merged.map((m) => m.content)).toEqual(['m1', 'm2', 'again']);
  });
});

describe('groupThreadReducer', () => {
  it('shows the greetings of a new group oldest first, as history returns them', () => {
    const state = run([{ type: 'newestPage', page: page([message(1, MIA, 'Hi, Mia here'), message(2, SOFIA)]) }]);
    expect(state.loaded).toBe(true);
    expect(state.messages.map((m) => m.characterId)).toEqual([MIA, SOFIA]);
    expect(state.running).toBe(false);
  });

  it('runs a round: the user message, two members one after the other, then idle', () => {
    const mine = message(10, null, 'Hey Sofia');
    let state = run([{ type: 'newestPage', page: page([message(1, MIA)]) }, { type: 'roundRequested' }]);
    expect(state.running).toBe(true);
    state = run(
      [
        { event: 'groupMessage', data: { groupId: GROUP, message: mine } },
        delta(SOFIA, id(11), 'Hi'),
        delta(SOFIA, id(11), ' there'),
      ],
      state,
    );
    expect(state.streaming).toEqual({ replyId: id(11), characterId: SOFIA, text: 'Hi there', from: 0 });
    state = run([done(SOFIA, id(11), message(11, SOFIA, 'Hi there')), delta(MIA, id(12), 'Me')], state);
    expect(contents(state)).toEqual(['m1', 'Hey Sofia', 'Hi there']);
    expect(state.streaming?.characterId).toBe(MIA);
    state = run([done(MIA, id(12), message(12, MIA, 'Me too')), idle(2)], state);
    expect(contents(state)).toEqual(['m1', 'Hey Sofia', 'Hi there', 'Me too']);
    expect(state.messages.map((m) => m.characterId)).toEqual([MIA, null, SOFIA, MIA]);
    expect(state.streaming).toBeNull();
    expect(state.running).toBe(false);
  });

  it('keeps the round running between one reply and the next speaker', () => {
    const state = run([{ type: 'roundRequested' }, delta(MIA, id(5), 'a'), done(MIA, id(5), message(5, MIA))]);
    expect(state.running).toBe(true);
    expect(state.streaming).toBeNull();
  });

  it('places a delta at its offset: a repeated piece is not shown twice, a missed start is kept out', () => {
    let held = placeGroupDelta(null, { replyId: 'r', characterId: MIA, delta: 'Hello', offset: 0 });
    held = placeGroupDelta(held, { replyId: 'r', characterId: MIA, delta: 'llo wor', offset: 2 });
    expect(held.text).toBe('Hello wor');
    const late = placeGroupDelta(null, { replyId: 'r', characterId: MIA, delta: 'world', offset: 6 });
    expect(late).toEqual({ replyId: 'r', characterId: MIA, text: 'world', from: 6 });
    expect(placeGroupDelta(late, { replyId: 'r', characterId: MIA, delta: 'o world', offset: 4 }).text).toBe('world');
  });

  it('a stop before any text stores nothing and ends the round', () => {
    const state = run([{ type: 'roundRequested' }, done(MIA, id(7), null), idle(0)]);
    expect(state.messages).toEqual([]);
    expect(state.running).toBe(false);
  });

  it("a member's failure drops its text and is shown; the replies before it stay", () => {
    let state = run([{ type: 'roundRequested' }, done(MIA, id(3), message(3, MIA)), delta(SOFIA, id(4), 'Par')]);
    state = run(
      [
        {
          event: 'groupError',
          data: { groupId: GROUP, characterId: SOFIA, replyId: id(4), code: 40004, msg: 'no free messages' },
        },
      ],
      state,
    );
    expect(state.streaming).toBeNull();
    expect(state.failure).toEqual({ code: 40004, msg: 'no free messages', characterId: SOFIA });
    expect(contents(state)).toEqual(['m3']);
    // groupIdle follows and ends the round; the failure stays until dismissed.
    state = run([idle(1)], state);
    expect(state.running).toBe(false);
    expect(run([{ type: 'failureDismissed' }], state).failure).toBeNull();
  });

  it('a refused action ends the wait for it, but a round already streaming goes on', () => {
    const refusal: GroupThreadAction = {
      event: 'groupError',
      data: { groupId: GROUP, characterId: null, replyId: null, code: 10003, msg: 'busy' },
    };
    expect(run([{ type: 'roundRequested' }, refusal]).running).toBe(false);
    const streaming = run([{ type: 'roundRequested' }, delta(MIA, id(2), 'Hi'), refusal]);
    expect(streaming.running).toBe(true);
    expect(streaming.streaming?.text).toBe('Hi');
  });

  it("the user's message sent from another tab starts a round here too", () => {
    const state = run([{ event: 'groupMessage', data: { groupId: GROUP, message: message(4, null) } }]);
    expect(state.running).toBe(true);
    expect(contents(state)).toEqual(['m4']);
  });

  it('pages in older messages above, and a newest page with a gap starts over', () => {
    let state = run([{ type: 'newestPage', page: page([message(5, MIA), message(6, null)], true) }]);
    state = run([{ type: 'olderPage', page: page([message(3, SOFIA), message(4, MIA)], false) }], state);
    expect(contents(state)).toEqual(['m3', 'm4', 'm5', 'm6']);
    expect(state.hasMore).toBe(false);
    // Back after a long time: a full newest page that does not reach what is held.
    state = run([{ type: 'newestPage', page: page([message(40, MIA), message(41, SOFIA)], true) }], state);
    expect(contents(state)).toEqual(['m40', 'm41']);
    expect(state.hasMore).toBe(true);
  });

  it('a newest page holding the streaming reply ends its streaming', () => {
    let state = run([{ type: 'roundRequested' }, delta(MIA, id(8), 'Hel')]);
    state = run([{ type: 'newestPage', page: page([message(8, MIA, 'Hello')]) }], state);
    expect(state.streaming).toBeNull();
    expect(contents(state)).toEqual(['Hello']);
  });
});

describe('versions, regenerate, continue, edit and delete', () => {
  const changed = (stored: GroupMessage): GroupThreadAction => ({
    event: 'groupMessage',
    data: { groupId: GROUP, message: stored },
  });
  const deleted = (...ids: string[]): GroupThreadAction => ({
    event: 'groupMessageDeleted',
    data: { groupId: GROUP, messageIds: ids },
  });
  const withSwipes = (stored: GroupMessage, index: number, count: number): GroupMessage => ({
    ...stored,
    swipes: { index, count },
  });
  /** A group ending with the user's message and Mia's reply to it. */
  const ended = () =>
    run([{ type: 'newestPage', page: page([message(1, SOFIA), message(2, null, 'Hi'), message(3, MIA, 'Hello')]) }]);

  it('offers regenerate and continue on the newest reply only when no round runs', () => {
    const state = ended();
    expect(groupReplyControls(state)).toEqual({ regenerate: true, continue: true });
    expect(groupReplyControls(run([{ type: 'roundRequested' }], state))).toEqual({
      regenerate: false,
      continue: false,
    });
    const mineLast = run([{ type: 'newestPage', page: page([message(1, MIA), message(2, null)]) }]);
    expect(groupReplyControls(mineLast)).toEqual({ regenerate: false, continue: false });
    const emptyReply = run([{ type: 'newestPage', page: page([message(1, null), message(2, MIA, '  ')]) }]);
    expect(groupReplyControls(emptyReply)).toEqual({ regenerate: true, continue: false });
  });

  it('regenerate: the old reply leaves, the new version streams under a new id and arrives with its versions', () => {
    let state = run([{ type: 'roundRequested' }, deleted(id(3))], ended());
    expect(contents(state)).toEqual(['m1', 'Hi']);
    state = run([delta(MIA, id(4), 'Hey'), delta(MIA, id(4), ' you')], state);
    expect(state.streaming).toMatchObject({ replyId: id(4), characterId: MIA, text: 'Hey you' });
    expect(continuedGroupMessageId(state)).toBeNull();
    state = run([done(MIA, id(4), withSwipes(message(4, MIA, 'Hey you'), 1, 2)), idle(1)], state);
    expect(contents(state)).toEqual(['m1', 'Hi', 'Hey you']);
    expect(state.running).toBe(false);
    expect(groupSwipeControls(state)).toEqual({ messageId: id(4), index: 1, count: 2, previous: 0, next: null });
  });

  it('regenerate that fails or is stopped before any text puts the old reply back in its place', () => {
    let state = run([{ type: 'roundRequested' }, deleted(id(3)), done(MIA, id(4), null)], ended());
    state = run([changed(message(3, MIA, 'Hello')), idle(0)], state);
    expect(contents(state)).toEqual(['m1', 'Hi', 'Hello']);
    expect(state.running).toBe(false);
    expect(state.streaming).toBeNull();
  });

  it('a version chosen replaces the newest reply in place and does not start a round', () => {
    const start = run([changed(withSwipes(message(3, MIA, 'Hello'), 1, 2))], ended());
    const state = run([changed(withSwipes(message(3, MIA, 'Other text'), 0, 2))], start);
    expect(contents(state)).toEqual(['m1', 'Hi', 'Other text']);
    expect(state.running).toBe(false);
    expect(groupSwipeControls(state)).toEqual({ messageId: id(3), index: 0, count: 2, previous: null, next: 1 });
    expect(groupSwipeControls(run([{ type: 'roundRequested' }], state))).toBeNull();
  });

  it('continue: the deltas grow the reply under its own id, offsets from where it continues; done stores it longer', () => {
    let state = run([{ type: 'roundRequested' }, delta(MIA, id(3), ' and'), delta(MIA, id(3), ' more')], ended());
    expect(continuedGroupMessageId(state)).toBe(id(3));
    expect(state.streaming).toEqual({ replyId: id(3), characterId: MIA, text: ' and more', from: 0 });
    // The reply itself stays as it was until it is stored again.
    expect(contents(state)).toEqual(['m1', 'Hi', 'Hello']);
    state = run([done(MIA, id(3), message(3, MIA, 'Hello and more')), idle(1)], state);
    expect(contents(state)).toEqual(['m1', 'Hi', 'Hello and more']);
    expect(state.messages).toHaveLength(3);
    expect(continuedGroupMessageId(state)).toBeNull();
  });

  it('a continuation that fails leaves the reply as it was', () => {
    let state = run([{ type: 'roundRequested' }, delta(MIA, id(3), ' and')], ended());
    state = run(
      [
        {
          event: 'groupError',
          data: { groupId: GROUP, characterId: MIA, replyId: id(3), code: 50000, msg: 'internal' },
        },
        changed(message(3, MIA, 'Hello')),
        idle(0),
      ],
      state,
    );
    expect(contents(state)).toEqual(['m1', 'Hi', 'Hello']);
    expect(state.streaming).toBeNull();
    expect(state.running).toBe(false);
    expect(state.failure?.code).toBe(50000);
  });

  it("an edit of the user's message replaces it (here or from another tab) without starting a round", () => {
    const here = run([{ type: 'messageEdited', message: message(2, null, 'Hi there') }], ended());
    expect(contents(here)).toEqual(['m1', 'Hi there', 'Hello']);
    const elsewhere = run([changed(message(2, null, 'Hi again'))], ended());
    expect(contents(elsewhere)).toEqual(['m1', 'Hi again', 'Hello']);
    expect(elsewhere.running).toBe(false);
  });

  it("a delete removes the user's message (here or from another tab)", () => {
    expect(contents(run([{ type: 'messageRemoved', messageId: id(2) }], ended()))).toEqual(['m1', 'Hello']);
    expect(contents(run([deleted(id(2))], ended()))).toEqual(['m1', 'Hello']);
  });

  it('a change to a message older than the pages read is left for when its page is read', () => {
    const state = run([{ type: 'newestPage', page: page([message(5, MIA), message(6, null)], true) }]);
    expect(contents(run([changed(message(2, null, 'old edit'))], state))).toEqual(['m5', 'm6']);
  });
});

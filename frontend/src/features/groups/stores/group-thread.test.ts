import { beforeEach, describe, expect, it } from 'vitest';
import {
  EMPTY_GROUP_THREAD,
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
  return { messageId: id(n), characterId, content, createdAt: 1_763_810_000_000 + n };
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

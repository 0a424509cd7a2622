import { beforeEach, describe, expect, it } from 'vitest';
import {
  continuedMessageId,
  continuedText,
  EMPTY_THREAD,
  greetingOnly,
  newestReplyParentId,
  swipeControls,
  mergeMessages,
  placeDelta,
  replyControls,
  threadReducer,
  type ThreadAction,
  type ThreadState,
} from '@/features/chat/stores/chat-thread';
import type { ChatMessage, MessagePage } from '@/lib/api-types';

const CHARACTER = 'gf-001';
// Real ids exceed Number.MAX_SAFE_INTEGER; ordering them as numbers would be wrong.
const id = (n: number) => `17638100000000${String(n).padStart(5, '0')}`;

function message(n: number, speaker: ChatMessage['speaker'], content = `m${n}`): ChatMessage {
  return { messageId: id(n), speaker, content, createdAt: 1_763_810_000_000 + n };
}

function page(messages: ChatMessage[], hasMore = false, creditsLeft: number | null = 30): MessagePage {
  // The server sends newest first.
  return { messages: [...messages].reverse(), hasMore, creditsLeft, replying: null };
}

const run = (actions: ThreadAction[], from: ThreadState = EMPTY_THREAD) => actions.reduce(threadReducer, from);
const ids = (state: ThreadState) => state.messages.map((m) => m.messageId);

/** Where the next delta of each reply starts, as the server counts (cleared before each test). */
const written = new Map<string, number>();
beforeEach(() => written.clear());
/** The next piece of `replyId`, placed after the pieces before it. */
const delta = (replyId: string, text: string): ThreadAction => {
  const offset = written.get(replyId) ?? 0;
  written.set(replyId, offset + text.length);
  return { event: 'chatDelta', data: { characterId: CHARACTER, replyId, delta: text, offset } };
};

describe('mergeMessages', () => {
  it('keeps one message per id, oldest first, the incoming copy winning', () => {
    const merged = mergeMessages(
      [message(1, 'character'), message(3, 'user')],
      [message(3, 'user', 'edited'), message(2, 'user')],
    );
    expect(merged.map((m) => m.content)).toEqual(['m1', 'm2', 'edited']);
  });

  it('orders ids of different lengths as numbers would, without losing precision', () => {
    const short = { ...message(0, 'user'), messageId: '999' };
    const big = { ...message(0, 'user'), messageId: '18446744073709551615' };
    const bigger = { ...message(0, 'user'), messageId: '18446744073709551616' };
    expect(mergeMessages([bigger, big], [short]).map((m) => m.messageId)).toEqual([
      '999',
      '18446744073709551615',
      '18446744073709551616',
    ]);
  });
});

describe('threadReducer', () => {
  it('shows the first page oldest first, the greeting on top', () => {
    const state = run([
      { type: 'newestPage', page: page([message(1, 'character', 'Hi, I am Mia'), message(2, 'user')], true, 12) },
    ]);
    expect(state.messages[0]!.content).toBe('Hi, I am Mia');
    expect(ids(state)).toEqual([id(1), id(2)]);
    expect(state).toMatchObject({ loaded: true, hasMore: true, creditsLeft: 12 });
  });

  it('prepends older pages and refetched newest pages without duplicates', () => {
    const state = run([
      { type: 'newestPage', page: page([message(3, 'user'), message(4, 'character')], true) },
      { type: 'olderPage', page: page([message(1, 'character'), message(2, 'user'), message(3, 'user')], false) },
      // After a reconnect: the newest page again, with one reply written meanwhile.
      {
        type: 'newestPage',
        page: page([message(4, 'character'), message(5, 'user'), message(6, 'character')], true, 7),
      },
    ]);
    expect(ids(state)).toEqual([1, 2, 3, 4, 5, 6].map(id));
    // The older pages are all there: a refetch of the newest must not say otherwise.
    expect(state.hasMore).toBe(false);
    expect(state.creditsLeft).toBe(7);
  });

  it('starts over from a refetched page that does not reach what it holds', () => {
    const state = run([
      { type: 'newestPage', page: page([message(1, 'character'), message(2, 'user')], false) },
      { type: 'newestPage', page: page([message(40, 'user'), message(41, 'character')], true) },
    ]);
    expect(ids(state)).toEqual([id(40), id(41)]);
    expect(state.hasMore).toBe(true);
  });

  it('grows the pending reply with each delta, then replaces it with the stored message', () => {
    let state = run([
      { type: 'newestPage', page: page([message(1, 'character')], false, 30) },
      { type: 'replyRequested' },
      { event: 'chatMessage', data: { characterId: CHARACTER, message: message(2, 'user', 'Hi Mia!') } },
    ]);
    expect(state.pending).toEqual({ replyId: null, text: '' });
    expect(state.creditsLeft).toBe(29);
    state = run([delta(id(3), 'Hey')], state);
    expect(state.pending).toEqual({ replyId: id(3), text: 'Hey' });
    state = run([delta(id(3), ' there'), delta(id(3), '!')], state);
    expect(state.pending!.text).toBe('Hey there!');
    expect(replyControls(state)).toEqual({ regenerate: false, retry: false, continue: false });

    state = run(
      [
        {
          event: 'chatDone',
          data: {
            characterId: CHARACTER,
            replyId: id(3),
            finishReason: 'stop',
            cut: false,
            message: message(3, 'character', 'Hey there!'),
            recalled: null,
          },
        },
      ],
      state,
    );
    expect(state.pending).toBeNull();
    expect(state.messages.map((m) => m.content)).toEqual(['m1', 'Hi Mia!', 'Hey there!']);
    expect(replyControls(state)).toEqual({ regenerate: true, retry: false, continue: true });
  });

  it('ends a reply stopped before any text without a message', () => {
    const state = run([
      { type: 'newestPage', page: page([message(1, 'character'), message(2, 'user')]) },
      { type: 'replyRequested' },
      {
        event: 'chatDone',
        data: {
          characterId: CHARACTER,
          replyId: id(3),
          finishReason: 'cancelled',
          cut: false,
          message: null,
          recalled: null,
        },
      },
    ]);
    expect(state.pending).toBeNull();
    expect(ids(state)).toEqual([id(1), id(2)]);
    expect(replyControls(state)).toEqual({ regenerate: false, retry: true, continue: false });
  });

  it('drops a new reply’s text when deltas of another reply arrive', () => {
    const state = run([{ type: 'replyRequested' }, delta(id(3), 'old'), delta(id(5), 'new')]);
    expect(state.pending).toEqual({ replyId: id(5), text: 'new' });
  });

  it('removes the old reply on regenerate and writes the new one', () => {
    const state = run([
      {
        type: 'newestPage',
        page: page([message(1, 'character'), message(2, 'user'), message(3, 'character', 'first try')]),
      },
      { type: 'replyRequested' },
      { event: 'chatMessageDeleted', data: { characterId: CHARACTER, messageIds: [id(3)] } },
      delta(id(4), 'second'),
    ]);
    expect(ids(state)).toEqual([id(1), id(2)]);
    expect(state.pending!.text).toBe('second');
  });

  it('clears the pending reply and keeps the server’s message when a chat action fails', () => {
    const state = run([
      { type: 'newestPage', page: page([message(1, 'character')], false, 1) },
      { type: 'replyRequested' },
      {
        event: 'chatError',
        data: { characterId: CHARACTER, replyId: null, code: 40004, msg: 'no free messages left today' },
      },
    ]);
    expect(state.pending).toBeNull();
    expect(state.failure).toEqual({ code: 40004, msg: 'no free messages left today' });
    expect(state.creditsLeft).toBe(0);
    expect(run([{ type: 'failureDismissed' }], state).failure).toBeNull();
  });

  it('keeps a streaming reply through a refusal or another reply’s failure, still showing it', () => {
    const error = (replyId: string | null, code: number, msg: string): ThreadAction => ({
      event: 'chatError',
      data: { characterId: CHARACTER, replyId, code, msg },
    });
    let state = run([
      { type: 'newestPage', page: page([message(1, 'character'), message(2, 'user')], false, 5) },
      { type: 'replyRequested' },
      delta(id(3), 'Hel'),
      error(null, 40004, 'no free messages left today'),
    ]);
    expect(state.pending).toEqual({ replyId: id(3), text: 'Hel' });
    expect(state.failure).toEqual({ code: 40004, msg: 'no free messages left today' });
    expect(state.creditsLeft).toBe(0);

    state = run([error(id(9), 50000, 'internal'), delta(id(3), 'lo')], state);
    expect(state.pending).toEqual({ replyId: id(3), text: 'Hello' });
    expect(state.failure).toEqual({ code: 50000, msg: 'internal' });

    // Its own failure ends it.
    state = run([error(id(3), 10070, 'not allowed')], state);
    expect(state.pending).toBeNull();
    expect(state.failure).toEqual({ code: 10070, msg: 'not allowed' });
  });

  it('ends a reply that has not started streaming on any error: the request itself was refused', () => {
    const state = run([
      { type: 'newestPage', page: page([message(1, 'character'), message(2, 'user')]) },
      { type: 'replyRequested' },
      { event: 'chatError', data: { characterId: CHARACTER, replyId: id(7), code: 50000, msg: 'internal' } },
    ]);
    expect(state.pending).toBeNull();
    expect(state.failure).toEqual({ code: 50000, msg: 'internal' });
  });

  it('settles a pending reply that history shows finished while the socket was away', () => {
    const streaming = run([
      { type: 'newestPage', page: page([message(1, 'character'), message(2, 'user')]) },
      { type: 'replyRequested' },
      delta(id(3), 'Hel'),
    ]);
    const refetched = run(
      [
        {
          type: 'newestPage',
          page: page([message(1, 'character'), message(2, 'user'), message(3, 'character', 'Hello!')]),
        },
      ],
      streaming,
    );
    expect(refetched.pending).toBeNull();
    expect(refetched.messages.at(-1)!.content).toBe('Hello!');
    // Still being written: history does not have it yet, so it stays pending.
    const stillRunning = run(
      [{ type: 'newestPage', page: page([message(1, 'character'), message(2, 'user')]) }],
      streaming,
    );
    expect(stillRunning.pending).toEqual({ replyId: id(3), text: 'Hel' });
  });

  it('follows a message sent from another tab, taking a credit once', () => {
    const sent = { event: 'chatMessage', data: { characterId: CHARACTER, message: message(2, 'user') } } as const;
    const state = run([{ type: 'newestPage', page: page([message(1, 'character')], false, 5) }, sent, sent]);
    expect(ids(state)).toEqual([id(1), id(2)]);
    expect(state.pending).toEqual({ replyId: null, text: '' });
    expect(state.creditsLeft).toBe(4);
  });

  it('keeps unlimited credits unlimited', () => {
    const state = run([
      { type: 'newestPage', page: page([message(1, 'character')], false, null) },
      { type: 'replyRequested' },
    ]);
    expect(state.creditsLeft).toBeNull();
  });

  it('applies the user’s edits and deletions', () => {
    const state = run([
      {
        type: 'newestPage',
        page: page([message(1, 'character'), message(2, 'user'), message(3, 'character'), message(4, 'user')]),
      },
      { type: 'messageEdited', message: message(2, 'user', 'better words') },
      { type: 'messageRemoved', messageId: id(4) },
    ]);
    expect(state.messages.map((m) => m.content)).toEqual(['m1', 'better words', 'm3']);
  });
});

describe('a page read mid-reply (issue 18)', () => {
  const replying = (replyId: string, content: string): MessagePage => ({
    ...page([message(1, 'character'), message(2, 'user')]),
    replying: { replyId, content },
  });
  const at = (replyId: string, text: string, offset: number): ThreadAction => ({
    event: 'chatDelta',
    data: { characterId: CHARACTER, replyId, delta: text, offset },
  });

  it('shows the words already streamed after a reload, then appends the next deltas', () => {
    const state = run([{ type: 'newestPage', page: replying(id(3), '*She smiles.* Hel') }, at(id(3), 'lo there', 17)]);
    expect(state.pending?.text).toBe('*She smiles.* Hello there');
    expect(ids(state)).toEqual([id(1), id(2)]);
  });

  it('joins the page and the deltas whichever comes first, no piece twice or lost', () => {
    // Deltas that came before the page, one of them already in it.
    const early = run([
      at(id(3), ' th', 2),
      at(id(3), 'ere', 5),
      { type: 'newestPage', page: replying(id(3), 'Hi th') },
      at(id(3), '!', 8),
    ]);
    expect(early.pending?.text).toBe('Hi there!');
    // A page that holds more than the deltas received so far: the late ones are not added twice.
    const late = run([
      { type: 'newestPage', page: replying(id(3), 'Hi there, you') },
      at(id(3), 'there', 3),
      at(id(3), ', you', 8),
      at(id(3), '!', 13),
    ]);
    expect(late.pending?.text).toBe('Hi there, you!');
    // A page older than the deltas held (asked before the socket was back) does not cut them.
    const stale = run([at(id(3), 'lo', 3), { type: 'newestPage', page: replying(id(3), 'H') }]);
    expect(stale.pending).toMatchObject({ text: 'lo', from: 3 });
  });

  it('places deltas by offset, and without one appends them', () => {
    expect(placeDelta({ replyId: 'r', text: 'abc', from: 0 }, 'r', 'cd', 2).text).toBe('abcd');
    expect(placeDelta({ replyId: 'r', text: 'cd', from: 2 }, 'r', 'abc', 0).text).toBe('cd');
    expect(placeDelta({ replyId: 'r', text: 'ab', from: 0 }, 'r', 'z', 9).text).toBe('abz');
    expect(placeDelta({ replyId: 'r', text: 'ab' }, 'r', 'c', undefined).text).toBe('abc');
  });

  it('drops the reply a page holds stored', () => {
    const stored = {
      ...page([message(1, 'character'), message(2, 'user'), message(3, 'character', 'Hi')]),
      replying: { replyId: id(3), content: 'H' },
    };
    expect(run([at(id(3), 'H', 0), { type: 'newestPage', page: stored }]).pending).toBeNull();
  });
});

describe('a conversation deleted in another tab', () => {
  it('leaves nothing to show', () => {
    const state = run([
      { type: 'newestPage', page: page([message(1, 'character'), message(2, 'user')], true) },
      { event: 'chatDeleted', data: { characterId: CHARACTER } },
    ]);
    expect(state).toMatchObject({ messages: [], hasMore: false, pending: null });
  });
});

describe('choosing another greeting (a card’s alternate greetings)', () => {
  it('replaces the greeting while it is the only message, whatever the new id', () => {
    const greeted = run([{ type: 'newestPage', page: page([message(1, 'character', 'Hi!')]) }]);
    expect(greetingOnly(greeted)).toBe(true);
    const chosen = run([{ type: 'greetingReplaced', message: message(2, 'character', 'Hello, stranger.') }], greeted);
    expect(chosen.messages).toEqual([message(2, 'character', 'Hello, stranger.')]);
  });

  it('changes nothing once the conversation went on, or while a reply is being written', () => {
    const talking = run([{ type: 'newestPage', page: page([message(1, 'character'), message(2, 'user')]) }]);
    expect(greetingOnly(talking)).toBe(false);
    expect(run([{ type: 'greetingReplaced', message: message(3, 'character') }], talking)).toBe(talking);
    const waiting = run([{ type: 'newestPage', page: page([message(1, 'character')]) }, { type: 'replyRequested' }]);
    expect(greetingOnly(waiting)).toBe(false);
    expect(run([{ type: 'greetingReplaced', message: message(3, 'character') }], waiting).messages).toEqual([
      message(1, 'character'),
    ]);
    expect(greetingOnly(EMPTY_THREAD)).toBe(false);
  });
});

describe('versions of the newest reply and continuing it (issue 18)', () => {
  const withSwipes = (n: number, content: string, index: number, count: number): ChatMessage => ({
    ...message(n, 'character', content),
    swipes: { index, count },
  });

  it('offer the arrows on the newest reply only, going past the last to a new version', () => {
    let state = run([
      { type: 'newestPage', page: page([message(1, 'character'), message(2, 'user'), withSwipes(3, 'second', 1, 3)]) },
    ]);
    expect(swipeControls(state)).toEqual({ messageId: id(3), index: 1, count: 3, previous: 0, next: 2 });
    // The other tab chose the last one: the same message, another text.
    state = run(
      [{ event: 'chatMessage', data: { characterId: CHARACTER, message: withSwipes(3, 'third', 2, 3) } }],
      state,
    );
    expect(state.messages.map((m) => m.content)).toEqual(['m1', 'm2', 'third']);
    expect(swipeControls(state)).toMatchObject({ index: 2, previous: 1, next: null });
    // A reply written once: no versions to go back to, right writes one.
    const once = run([
      { type: 'newestPage', page: page([message(1, 'character'), message(2, 'user'), message(3, 'character')]) },
    ]);
    expect(swipeControls(once)).toEqual({ messageId: id(3), index: 0, count: 1, previous: null, next: null });
    // Not while a reply is being written, and not on the greeting alone or a user message.
    expect(swipeControls(run([{ type: 'replyRequested' }], state))).toBeNull();
    expect(swipeControls(run([{ type: 'newestPage', page: page([message(1, 'character')]) }]))).toBeNull();
    expect(
      swipeControls(run([{ type: 'newestPage', page: page([message(1, 'character'), message(2, 'user')]) }])),
    ).toBeNull();
    // Once the user writes on, the older reply's versions are not offered.
    const on = run([{ event: 'chatMessage', data: { characterId: CHARACTER, message: message(4, 'user') } }], state);
    expect(swipeControls(on)).toBeNull();
  });

  it('say which user message the newest reply answers, for the offer after an edit', () => {
    const state = run([
      { type: 'newestPage', page: page([message(1, 'character'), message(2, 'user'), message(3, 'character')]) },
    ]);
    expect(newestReplyParentId(state)).toBe(id(2));
    const unanswered = run(
      [{ event: 'chatMessage', data: { characterId: CHARACTER, message: message(4, 'user') } }],
      state,
    );
    expect(newestReplyParentId(unanswered)).toBeNull();
  });

  it('grow a continued reply in place and settle it with the stored text', () => {
    let state = run([
      {
        type: 'newestPage',
        page: page(
          [message(1, 'character'), message(2, 'user'), message(3, 'character', 'The light was lit in 1871')],
          false,
          10,
        ),
      },
      { type: 'replyRequested' },
    ]);
    expect(state.creditsLeft).toBe(9);
    expect(continuedMessageId(state)).toBeNull();
    state = run([delta(id(3), 'and never'), delta(id(3), ' went out.')], state);
    expect(continuedMessageId(state)).toBe(id(3));
    expect(state.pending?.text).toBe('and never went out.');
    expect(state.messages).toHaveLength(3);
    state = run(
      [
        {
          event: 'chatDone',
          data: {
            characterId: CHARACTER,
            replyId: id(3),
            finishReason: 'stop',
            cut: false,
            message: message(3, 'character', 'The light was lit in 1871 and never went out.'),
            recalled: null,
          },
        },
      ],
      state,
    );
    expect(state.pending).toBeNull();
    expect(state.messages.map((m) => m.content)).toEqual(['m1', 'm2', 'The light was lit in 1871 and never went out.']);
  });

  it('join a continuation as the server stores it', () => {
    expect(continuedText('She smiles', 'and waves.')).toBe('She smiles and waves.');
    expect(continuedText('She smiles ', ', then waves.')).toBe('She smiles, then waves.');
    expect(continuedText('She smiles', '')).toBe('She smiles');
    expect(continuedText('', 'Hello.')).toBe('Hello.');
  });
});

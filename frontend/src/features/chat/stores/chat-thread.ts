/**
 * One conversation as the chat screen shows it, and how history pages and the chat events
 * of the WebSocket (docs/api.md "WebSocket") change it. Pure: the hook feeds it pages and
 * events, tests feed it the same.
 *
 * - Messages are kept oldest first, one per id; a page or an event repeating a message
 *   replaces it (an edit), never adds it twice.
 * - A reply being written is `pending`: its text grows with each `chatDelta`, and the stored
 *   message of `chatDone` (or history holding its id) takes its place. A continued reply
 *   (`chatContinue`) streams under the id of a message already held: its pending text is
 *   shown after that message's own (`continuedText`).
 * - A newest page read mid-reply (a reload) carries the reply's text so far; each delta says
 *   where in the reply it starts (`offset`), so the two join without a piece twice or lost,
 *   whichever arrives first. A continuation's offsets count from where it starts.
 * - The newest reply may have versions (`swipes`, docs/api.md "Versions of a reply"):
 *   `swipeControls` says what its arrows do.
 */
import type { ChatMessage, MessagePage } from '@/lib/api-types';
import { compareEntryIds } from '@/lib/entry-ids';
import type { ServerEventOf } from '@/lib/realtime-events';

export interface PendingReply {
  /** The id the stored reply will have; null until its first delta arrives. */
  replyId: string | null;
  text: string;
  /** Where `text` starts in the reply (UTF-16 units): above 0 when the start was missed. */
  from?: number;
}

export interface ChatFailure {
  code: number;
  msg: string;
}

export interface ThreadState {
  messages: ChatMessage[];
  /** Older messages may exist beyond the oldest one held. */
  hasMore: boolean;
  /** Free messages left today; null for paid users (unlimited) or before the first page. */
  creditsLeft: number | null;
  /** The newest page has arrived at least once. */
  loaded: boolean;
  /** A reply asked for and not ended yet. */
  pending: PendingReply | null;
  /** Why the last chat action failed, until the next one. */
  failure: ChatFailure | null;
}

export const EMPTY_THREAD: ThreadState = {
  messages: [],
  hasMore: false,
  creditsLeft: null,
  loaded: false,
  pending: null,
  failure: null,
};

/** The WebSocket's chat events, applied as they arrive (filtered to this conversation). */
export type ChatEvent =
  | ServerEventOf<'chatMessage'>
  | ServerEventOf<'chatDelta'>
  | ServerEventOf<'chatDone'>
  | ServerEventOf<'chatError'>
  | ServerEventOf<'chatMessageDeleted'>
  | ServerEventOf<'chatDeleted'>;

/** What the screen itself does to the thread. */
export type LocalAction =
  /** The newest page (first load, or a refetch after a reconnect). */
  | { type: 'newestPage'; page: MessagePage }
  /** A page older than what is held (scrolling up). */
  | { type: 'olderPage'; page: MessagePage }
  /** The user asked for a reply (send, regenerate or continue); a credit is taken by the server. */
  | { type: 'replyRequested' }
  /** The user edited one of their messages. */
  | { type: 'messageEdited'; message: ChatMessage }
  /** The user deleted one of their messages. */
  | { type: 'messageRemoved'; messageId: string }
  /** Another of the card's greetings took the place of the first message (`chat/chooseGreeting`). */
  | { type: 'greetingReplaced'; message: ChatMessage }
  | { type: 'failureDismissed' };

export type ThreadAction = LocalAction | ChatEvent;

/** `list` with `incoming` merged in: one message per id (the incoming one wins), oldest first. */
export function mergeMessages(list: readonly ChatMessage[], incoming: readonly ChatMessage[]): ChatMessage[] {
  const byId = new Map(list.map((message) => [message.messageId, message]));
  for (const message of incoming) byId.set(message.messageId, message);
  return [...byId.values()].sort((a, b) => compareEntryIds(a.messageId, b.messageId));
}

/** A pending reply that history (or an event) shows stored is no longer pending. */
function settlePending(pending: PendingReply | null, messages: readonly ChatMessage[]): PendingReply | null {
  if (!pending?.replyId) return pending;
  const newest = messages[messages.length - 1];
  const stored = messages.some((m) => m.messageId === pending.replyId);
  // A character message newer than the reply's id means the reply ended while we were away.
  const overtaken = newest?.speaker === 'character' && compareEntryIds(newest.messageId, pending.replyId) > 0;
  return stored || overtaken ? null : pending;
}

/** `held` (the same reply's text so far, or null) with `delta` placed at `offset`. */
export function placeDelta(
  held: PendingReply | null,
  replyId: string,
  delta: string,
  offset: number | undefined,
): PendingReply {
  const known = offset !== undefined && Number.isFinite(offset) && offset >= 0;
  if (!held) return known && offset > 0 ? { replyId, text: delta, from: offset } : { replyId, text: delta };
  const from = held.from ?? 0;
  // Without an offset, or past a gap (a piece missed), the delta follows what is held.
  const at = known ? offset - from : held.text.length;
  if (at > held.text.length) return { ...held, text: held.text + delta };
  if (at < 0) {
    // It starts before what is held: only its part past that start can be new.
    return -at >= delta.length ? held : placeDelta(held, replyId, delta.slice(-at), from);
  }
  return { ...held, text: held.text.slice(0, at) + delta + held.text.slice(at + delta.length) };
}

/** The pending reply after a newest page: the reply it says is being written joined with what is held. */
function pendingAfterPage(
  pending: PendingReply | null,
  page: MessagePage,
  messages: readonly ChatMessage[],
): PendingReply | null {
  const replying = page.replying;
  if (!replying) return settlePending(pending, messages);
  if (messages.some((m) => m.messageId === replying.replyId)) return null;
  const held = pending?.replyId === replying.replyId ? pending : null;
  const snapshot: PendingReply = { replyId: replying.replyId, text: replying.content };
  // The deltas held may go on past the page's text: they are placed on it.
  if (!held) return snapshot;
  if ((held.from ?? 0) > replying.content.length) return held;
  return placeDelta(snapshot, replying.replyId, held.text, held.from ?? 0);
}

const takeCredit = (credits: number | null) => (credits === null ? null : Math.max(0, credits - 1));

function applyEvent(state: ThreadState, event: ChatEvent): ThreadState {
  switch (event.event) {
    case 'chatMessage': {
      const { message } = event.data;
      // The user's message sent from another tab: a reply to it follows, on a credit.
      const fromElsewhere =
        message.speaker === 'user' && !state.pending && !state.messages.some((m) => m.messageId === message.messageId);
      return {
        ...state,
        messages: mergeMessages(state.messages, [message]),
        pending: fromElsewhere ? { replyId: null, text: '' } : state.pending,
        creditsLeft: fromElsewhere ? takeCredit(state.creditsLeft) : state.creditsLeft,
      };
    }
    case 'chatDelta': {
      const { replyId, delta, offset } = event.data;
      const held = state.pending?.replyId === replyId ? state.pending : null;
      return { ...state, pending: placeDelta(held, replyId, delta, offset) };
    }
    case 'chatDone': {
      const { message } = event.data;
      return { ...state, messages: message ? mergeMessages(state.messages, [message]) : state.messages, pending: null };
    }
    case 'chatError': {
      // Whether a credit came back is the server's to say: the screen refetches the newest
      // page after an error. Out of free messages is plain, though.
      const { replyId, code, msg } = event.data;
      const creditsLeft = code === 40004 && state.creditsLeft !== null ? 0 : state.creditsLeft;
      // A reply already streaming ends only with its own error: a refusal (replyId null) or
      // another reply's failure is shown, and the reply goes on. Before its first delta the
      // send or regenerate itself may be what was refused, so the wait ends.
      const streaming = state.pending?.replyId ?? null;
      const pending = streaming !== null && replyId !== streaming ? state.pending : null;
      return { ...state, pending, failure: { code, msg }, creditsLeft };
    }
    case 'chatMessageDeleted': {
      const gone = new Set(event.data.messageIds);
      return { ...state, messages: state.messages.filter((m) => !gone.has(m.messageId)) };
    }
    case 'chatDeleted':
      // Deleted in another tab: nothing of it is left to show.
      return { ...state, messages: [], hasMore: false, pending: null };
  }
}

export function threadReducer(state: ThreadState, action: ThreadAction): ThreadState {
  if ('event' in action) return applyEvent(state, action);
  switch (action.type) {
    case 'newestPage': {
      const page = action.page;
      const oldestIncoming = page.messages[page.messages.length - 1];
      const newestHeld = state.messages[state.messages.length - 1];
      // A full page that does not reach what is held leaves a gap: start over from it.
      const gap =
        page.hasMore &&
        oldestIncoming !== undefined &&
        newestHeld !== undefined &&
        compareEntryIds(oldestIncoming.messageId, newestHeld.messageId) > 0;
      const fresh = gap || !state.loaded;
      const messages = mergeMessages(fresh ? [] : state.messages, page.messages);
      return {
        ...state,
        messages,
        hasMore: fresh ? page.hasMore : state.hasMore,
        creditsLeft: page.creditsLeft,
        loaded: true,
        pending: pendingAfterPage(state.pending, page, messages),
      };
    }
    case 'olderPage':
      return { ...state, messages: mergeMessages(state.messages, action.page.messages), hasMore: action.page.hasMore };
    case 'replyRequested':
      return {
        ...state,
        pending: { replyId: null, text: '' },
        failure: null,
        creditsLeft: takeCredit(state.creditsLeft),
      };
    case 'messageEdited':
      return { ...state, messages: mergeMessages(state.messages, [action.message]) };
    case 'messageRemoved':
      return { ...state, messages: state.messages.filter((m) => m.messageId !== action.messageId) };
    case 'greetingReplaced':
      // Only while the greeting is all there is: the new one replaces it, whatever its id.
      return greetingOnly(state) ? { ...state, messages: [action.message] } : state;
    case 'failureDismissed':
      return { ...state, failure: null };
  }
}

/** What the newest messages allow: regenerate the newest reply, write a missing one, or continue the newest. */
export function replyControls(state: ThreadState): { regenerate: boolean; retry: boolean; continue: boolean } {
  if (state.pending) return { regenerate: false, retry: false, continue: false };
  const [before, newest] = state.messages.slice(-2);
  return {
    // The greeting alone has nothing to regenerate: a reply must answer a user message.
    regenerate: newest?.speaker === 'character' && before?.speaker === 'user',
    retry: newest?.speaker === 'user',
    // A picture is not a reply: it has no text to go on with.
    continue: newest?.speaker === 'character' && !newest.image && newest.content.trim() !== '',
  };
}

/** The reply being continued: a pending reply streaming under the id of a message held. */
export function continuedMessageId(state: ThreadState): string | null {
  const id = state.pending?.replyId;
  return id && state.messages.some((m) => m.messageId === id) ? id : null;
}

/**
 * A reply's text with its continuation so far, as the server will store it: one space
 * between them, none before punctuation (docs/api.md "Versions of a reply").
 */
export function continuedText(before: string, more: string): string {
  const head = before.trimEnd();
  const tail = more.trimStart();
  if (!tail) return head;
  if (!head || /^[.,!?;:)…'’]/.test(tail)) return head + tail;
  return `${head} ${tail}`;
}

/**
 * The arrows of the newest reply: where left and right go. `next` is null at the last
 * version (right then writes a new one, as a swipe past the end does in SillyTavern);
 * null as a whole when the newest message is no reply or a reply is being written.
 */
export function swipeControls(
  state: ThreadState,
): { messageId: string; index: number; count: number; previous: number | null; next: number | null } | null {
  if (state.pending) return null;
  const [before, newest] = state.messages.slice(-2);
  if (newest?.speaker !== 'character' || before?.speaker !== 'user' || newest.image) return null;
  const index = newest.swipes?.index ?? 0;
  const count = newest.swipes?.count ?? 1;
  return {
    messageId: newest.messageId,
    index,
    count,
    previous: index > 0 ? index - 1 : null,
    next: index + 1 < count ? index + 1 : null,
  };
}

/** The user message whose reply is the newest message: an edit of it may be followed by a new version. */
export function newestReplyParentId(state: ThreadState): string | null {
  const [before, newest] = state.messages.slice(-2);
  return newest?.speaker === 'character' && before?.speaker === 'user' && !newest.image ? before.messageId : null;
}

/** The conversation holds only the character's greeting: another greeting may replace it. */
export function greetingOnly(state: ThreadState): boolean {
  return state.loaded && !state.pending && state.messages.length === 1 && state.messages[0]!.speaker === 'character';
}

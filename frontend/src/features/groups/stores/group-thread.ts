/**
 * One group chat as its screen shows it, and how history pages and the group events of the
 * WebSocket (docs/api.md "WebSocket": groupMessage, groupDelta, groupDone, groupError,
 * groupIdle) change it. Pure: the hook feeds it pages and events, tests feed it the same.
 *
 * - Messages are kept oldest first, one per id (a page or an event repeating one replaces it).
 * - A round (a send, "let them talk", a pick) runs from the moment it is asked until
 *   `groupIdle`; in it the members speak one after another. The reply being written is
 *   `streaming`: its speaker and its text so far, which grows with each `groupDelta` (placed
 *   at its `offset`); `groupDone` puts the stored message in its place.
 * - `groupError` ends the reply it names (its text is dropped, as the server drops it) and
 *   is shown; a refusal (`characterId` null) started nothing, so the wait for it ends too.
 * - Versions, regenerate, continue, edit and delete (docs/api.md "Group chats"): a
 *   `groupMessage` whose id is held replaces that message (an edit, a version chosen, a
 *   reply put back after a failed regenerate); `groupMessageDeleted` removes messages (a
 *   delete, or the old reply when `groupRegenerate` writes it again, whose new version then
 *   streams under a new id). A continuation streams under the id of the reply it continues:
 *   its text so far is shown after that reply's own (`continuedGroupMessageId`).
 */
import type { GroupMessage, GroupMessagePage } from '@/lib/api-types';
import { compareEntryIds } from '@/lib/entry-ids';
import type { ServerEventOf } from '@/lib/realtime-events';

/** A member's reply being written. */
export interface StreamingReply {
  replyId: string;
  characterId: string;
  text: string;
  /** Where `text` starts in the reply (UTF-16 units): above 0 when its start was missed. */
  from: number;
}

export interface GroupFailure {
  code: number;
  msg: string;
  /** Whose turn failed; null when the action itself was refused. */
  characterId: string | null;
}

export interface GroupThreadState {
  messages: GroupMessage[];
  /** Older messages may exist beyond the oldest one held. */
  hasMore: boolean;
  /** The newest page has arrived at least once. */
  loaded: boolean;
  /** A round was asked for (or seen running) and has not ended. */
  running: boolean;
  streaming: StreamingReply | null;
  /** Why the last group action failed, until the next one. */
  failure: GroupFailure | null;
}

export const EMPTY_GROUP_THREAD: GroupThreadState = {
  messages: [],
  hasMore: false,
  loaded: false,
  running: false,
  streaming: null,
  failure: null,
};

/** The socket's group events, applied as they arrive (filtered to this group). */
export type GroupEvent =
  | ServerEventOf<'groupMessage'>
  | ServerEventOf<'groupMessageDeleted'>
  | ServerEventOf<'groupDelta'>
  | ServerEventOf<'groupDone'>
  | ServerEventOf<'groupError'>
  | ServerEventOf<'groupIdle'>;

export type GroupLocalAction =
  /** The newest page (first load, or a refetch after a reconnect). */
  | { type: 'newestPage'; page: GroupMessagePage }
  /** A page older than what is held (scrolling up). */
  | { type: 'olderPage'; page: GroupMessagePage }
  /** The user started a round (send, let them talk, pick, regenerate, continue). */
  | { type: 'roundRequested' }
  /** The user edited one of their messages (`group/editMessage` answered). */
  | { type: 'messageEdited'; message: GroupMessage }
  /** The user deleted one of their messages (`group/deleteMessage` answered). */
  | { type: 'messageRemoved'; messageId: string }
  | { type: 'failureDismissed' };

export type GroupThreadAction = GroupLocalAction | GroupEvent;

/** `list` with `incoming` merged in: one message per id (the incoming one wins), oldest first. */
export function mergeGroupMessages(list: readonly GroupMessage[], incoming: readonly GroupMessage[]): GroupMessage[] {
  const byId = new Map(list.map((message) => [message.messageId, message]));
  for (const message of incoming) byId.set(message.messageId, message);
  return [...byId.values()].sort((a, b) => compareEntryIds(a.messageId, b.messageId));
}

/** `held` (the same reply's text so far, or null) with `delta` placed at `offset`. */
export function placeGroupDelta(
  held: StreamingReply | null,
  data: { replyId: string; characterId: string; delta: string; offset: number },
): StreamingReply {
  const { replyId, characterId, delta, offset } = data;
  const known = Number.isFinite(offset) && offset >= 0;
  if (!held) return { replyId, characterId, text: delta, from: known ? offset : 0 };
  // Past a gap (a piece missed) or without a usable offset, the delta follows what is held.
  const at = known ? offset - held.from : held.text.length;
  if (at >= held.text.length) return { ...held, text: held.text + delta };
  if (at < 0) {
    // It starts before what is held: only its part past that start can be new.
    if (-at >= delta.length) return held;
    return placeGroupDelta(held, { ...data, delta: delta.slice(-at), offset: held.from });
  }
  return { ...held, text: held.text.slice(0, at) + delta + held.text.slice(at + delta.length) };
}

function applyEvent(state: GroupThreadState, event: GroupEvent): GroupThreadState {
  switch (event.event) {
    case 'groupMessage': {
      const { message } = event.data;
      const held = state.messages.some((m) => m.messageId === message.messageId);
      const oldest = state.messages[0];
      // A change to a message older than every one held belongs to a page not read yet.
      if (!held && state.hasMore && oldest && compareEntryIds(message.messageId, oldest.messageId) < 0) return state;
      const newest = state.messages[state.messages.length - 1];
      // A new message of the user's (this tab or another) starts a round; a changed one
      // (an edit, a version chosen, a reply put back) does not.
      const startsRound =
        !held && message.characterId === null && (!newest || compareEntryIds(message.messageId, newest.messageId) > 0);
      return {
        ...state,
        messages: mergeGroupMessages(state.messages, [message]),
        running: state.running || startsRound,
        // A continuation that failed: the reply comes back as it was, no longer growing.
        streaming: state.streaming?.replyId === message.messageId ? null : state.streaming,
      };
    }
    case 'groupMessageDeleted': {
      const gone = new Set(event.data.messageIds);
      return { ...state, messages: state.messages.filter((m) => !gone.has(m.messageId)) };
    }
    case 'groupDelta': {
      const held = state.streaming?.replyId === event.data.replyId ? state.streaming : null;
      return { ...state, running: true, streaming: placeGroupDelta(held, event.data) };
    }
    case 'groupDone': {
      const { message, replyId } = event.data;
      return {
        ...state,
        messages: message ? mergeGroupMessages(state.messages, [message]) : state.messages,
        streaming: state.streaming?.replyId === replyId ? null : state.streaming,
      };
    }
    case 'groupError': {
      const { characterId, replyId, code, msg } = event.data;
      const failure = { code, msg, characterId };
      if (characterId === null) {
        // Refused: nothing was started by it. A round already streaming goes on.
        return { ...state, failure, running: state.streaming !== null };
      }
      // A member's turn failed: the round ends there (groupIdle follows); its text is dropped.
      const ended = state.streaming && (replyId === null || state.streaming.replyId === replyId);
      return { ...state, failure, streaming: ended ? null : state.streaming };
    }
    case 'groupIdle':
      return { ...state, running: false, streaming: null };
  }
}

export function groupThreadReducer(state: GroupThreadState, action: GroupThreadAction): GroupThreadState {
  if ('event' in action) return applyEvent(state, action);
  switch (action.type) {
    case 'newestPage': {
      const { page } = action;
      const oldestIncoming = page.messages[page.messages.length - 1];
      const newestHeld = state.messages[state.messages.length - 1];
      // A full page that does not reach what is held leaves a gap: start over from it.
      const gap =
        page.hasMore &&
        oldestIncoming !== undefined &&
        newestHeld !== undefined &&
        compareEntryIds(oldestIncoming.messageId, newestHeld.messageId) > 0;
      const fresh = gap || !state.loaded;
      const messages = mergeGroupMessages(fresh ? [] : state.messages, page.messages);
      // A reply stored while the page was read is no longer streaming.
      const stored = state.streaming && messages.some((m) => m.messageId === state.streaming?.replyId);
      return {
        ...state,
        messages,
        hasMore: fresh ? page.hasMore : state.hasMore,
        loaded: true,
        streaming: stored ? null : state.streaming,
      };
    }
    case 'olderPage':
      return {
        ...state,
        messages: mergeGroupMessages(state.messages, action.page.messages),
        hasMore: action.page.hasMore,
      };
    case 'roundRequested':
      return { ...state, running: true, failure: null };
    case 'messageEdited':
      return { ...state, messages: mergeGroupMessages(state.messages, [action.message]) };
    case 'messageRemoved':
      return { ...state, messages: state.messages.filter((m) => m.messageId !== action.messageId) };
    case 'failureDismissed':
      return { ...state, failure: null };
  }
}

/** The newest message when it is a member's reply (what regenerate, continue and versions act on). */
function newestReply(state: GroupThreadState): GroupMessage | null {
  const newest = state.messages[state.messages.length - 1];
  return newest && newest.characterId !== null ? newest : null;
}

/** What the newest reply allows now: write it again, or write its rest. Nothing while a round runs. */
export function groupReplyControls(state: GroupThreadState): { regenerate: boolean; continue: boolean } {
  const reply = state.running || !state.loaded ? null : newestReply(state);
  return { regenerate: reply !== null, continue: reply !== null && reply.content.trim() !== '' };
}

/**
 * The arrows of the newest reply: where left and right go. `next` is null at the last
 * version (right then writes a new one, as in one-to-one chat); null as a whole while a
 * round runs or when the group does not end with a reply.
 */
export function groupSwipeControls(
  state: GroupThreadState,
): { messageId: string; index: number; count: number; previous: number | null; next: number | null } | null {
  if (state.running) return null;
  const reply = newestReply(state);
  if (!reply) return null;
  const index = reply.swipes?.index ?? 0;
  const count = reply.swipes?.count ?? 1;
  return {
    messageId: reply.messageId,
    index,
    count,
    previous: index > 0 ? index - 1 : null,
    next: index + 1 < count ? index + 1 : null,
  };
}

/** The reply being continued: the one streaming under the id of a message held. */
export function continuedGroupMessageId(state: GroupThreadState): string | null {
  const id = state.streaming?.replyId;
  return id && state.messages.some((m) => m.messageId === id) ? id : null;
}

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
  | ServerEventOf<'groupDelta'>
  | ServerEventOf<'groupDone'>
  | ServerEventOf<'groupError'>
  | ServerEventOf<'groupIdle'>;

export type GroupLocalAction =
  /** The newest page (first load, or a refetch after a reconnect). */
  | { type: 'newestPage'; page: GroupMessagePage }
  /** A page older than what is held (scrolling up). */
  | { type: 'olderPage'; page: GroupMessagePage }
  /** The user started a round (send, let them talk, pick). */
  | { type: 'roundRequested' }
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
    case 'groupMessage':
      // The user's message, from this tab or another: a round follows it.
      return { ...state, messages: mergeGroupMessages(state.messages, [event.data.message]), running: true };
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
    case 'failureDismissed':
      return { ...state, failure: null };
  }
}

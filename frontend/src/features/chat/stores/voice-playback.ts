/**
 * Speaking a character's message (docs/api.md "Voice"): `voice/speak` answers with the first
 * part(s) and `complete`, the rest arrive as `voicePart` events, and the parts are played in
 * index order, one after another, waiting for a part that has not arrived yet. Pure: the
 * player hook feeds it answers, events and the audio element's `ended`; tests do the same.
 *
 * The parts of every message spoken in this session are kept, so a replay plays them again
 * without asking the server (a replay is free anyway; this saves the round trip). One
 * message plays at a time: playing another stops the first.
 */
import type { VoicePart } from '@/lib/api-types';

export interface SpokenMessage {
  /** Sorted by index, one per index. */
  parts: VoicePart[];
  /** Every part is here (the answer said so, or the part marked `last` arrived). */
  complete: boolean;
}

export type Phase = 'requesting' | 'playing' | 'waiting' | 'failed';

export interface Playback {
  messageId: string;
  phase: Phase;
  /** The index of the part playing, or to play next. */
  current: number;
  failure: { code: number; msg: string } | null;
}

export interface VoiceState {
  spoken: Record<string, SpokenMessage>;
  active: Playback | null;
}

export const EMPTY_VOICE: VoiceState = { spoken: {}, active: null };

export type VoiceAction =
  /** The user pressed play. */
  | { type: 'play'; messageId: string }
  /** `voice/speak` answered. */
  | { type: 'answer'; messageId: string; parts: VoicePart[]; complete: boolean }
  /** A `voicePart` event. */
  | { type: 'part'; messageId: string; part: VoicePart }
  /** The audio of part `index` ended. */
  | { type: 'ended'; messageId: string; index: number }
  /** `voice/speak` was refused, a `voiceFailed` event, or the audio could not be played. */
  | { type: 'failed'; messageId: string; code: number; msg: string }
  /** The user pressed stop (or left the conversation). */
  | { type: 'stop' };

function mergeParts(known: SpokenMessage | undefined, incoming: VoicePart[], complete: boolean): SpokenMessage {
  const byIndex = new Map((known?.parts ?? []).map((part) => [part.index, part]));
  // A part already held stays the same object, so what is playing is not restarted.
  for (const part of incoming) if (!byIndex.has(part.index)) byIndex.set(part.index, part);
  const parts = [...byIndex.values()].sort((a, b) => a.index - b.index);
  return { parts, complete: complete || (known?.complete ?? false) || parts.some((part) => part.last) };
}

/** Playing, or waiting, for part `current` of what is known of the message. */
function resume(spoken: SpokenMessage | undefined, active: Playback): Playback | null {
  const has = spoken?.parts.some((part) => part.index === active.current) ?? false;
  if (has) return { ...active, phase: 'playing' };
  const lastIndex =
    spoken?.parts.find((part) => part.last)?.index ??
    (spoken?.complete ? Math.max(-1, ...spoken.parts.map((p) => p.index)) : null);
  // Past the last part: the message has been spoken.
  if (lastIndex !== null && active.current > lastIndex) return null;
  return { ...active, phase: active.phase === 'requesting' ? 'requesting' : 'waiting' };
}

/** Whether playing this message needs a `voice/speak` call (it was not wholly spoken this session). */
export function needsRequest(state: VoiceState, messageId: string): boolean {
  return !state.spoken[messageId]?.complete;
}

export function voiceReducer(state: VoiceState, action: VoiceAction): VoiceState {
  const active = state.active;
  const mine = action.type !== 'stop' && active?.messageId === action.messageId;
  switch (action.type) {
    case 'play': {
      const playback: Playback = { messageId: action.messageId, phase: 'requesting', current: 0, failure: null };
      const spoken = state.spoken[action.messageId];
      return { ...state, active: spoken?.complete ? resume(spoken, { ...playback, phase: 'waiting' }) : playback };
    }
    case 'answer':
    case 'part': {
      const incoming = action.type === 'answer' ? action.parts : [action.part];
      const merged = mergeParts(state.spoken[action.messageId], incoming, action.type === 'answer' && action.complete);
      const spoken = { ...state.spoken, [action.messageId]: merged };
      if (!mine || !active || active.phase === 'failed') return { ...state, spoken };
      if (active.phase === 'playing') return { spoken, active };
      // The answer ends the request; a part may end a wait.
      const base = action.type === 'answer' ? { ...active, phase: 'waiting' as const } : active;
      return { spoken, active: resume(merged, base) };
    }
    case 'ended': {
      if (!mine || !active || active.current !== action.index) return state;
      return {
        ...state,
        active: resume(state.spoken[action.messageId], { ...active, current: action.index + 1, phase: 'waiting' }),
      };
    }
    case 'failed':
      if (!mine || !active) return state;
      return { ...state, active: { ...active, phase: 'failed', failure: { code: action.code, msg: action.msg } } };
    case 'stop':
      return active ? { ...state, active: null } : state;
  }
}

/** The part the audio element should be playing now, if any. */
export function currentPart(state: VoiceState): VoicePart | null {
  const active = state.active;
  if (!active || active.phase !== 'playing') return null;
  return state.spoken[active.messageId]?.parts.find((part) => part.index === active.current) ?? null;
}

/** What a message's play button shows. */
export function buttonState(state: VoiceState, messageId: string): 'idle' | 'loading' | 'playing' | 'failed' {
  const active = state.active;
  if (active?.messageId !== messageId) return 'idle';
  if (active.phase === 'failed') return 'failed';
  return active.phase === 'playing' ? 'playing' : 'loading';
}

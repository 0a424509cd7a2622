import { describe, expect, it } from 'vitest';
import {
  buttonState,
  currentPart,
  EMPTY_VOICE,
  needsRequest,
  voiceReducer,
  type VoiceAction,
  type VoiceState,
} from '@/features/chat/stores/voice-playback';
import type { VoicePart } from '@/lib/api-types';

const part = (index: number, last = false): VoicePart => ({
  index,
  url: `/media/voice-m1-${index}`,
  durationMs: 1200,
  last,
});
const run = (actions: VoiceAction[], from: VoiceState = EMPTY_VOICE) => actions.reduce(voiceReducer, from);

describe('voice part sequencing', () => {
  it('plays the first part of the answer, then each part as it arrives, in order', () => {
    let state = run([{ type: 'play', messageId: 'm1' }]);
    expect(buttonState(state, 'm1')).toBe('loading');
    expect(currentPart(state)).toBeNull();

    state = run([{ type: 'answer', messageId: 'm1', parts: [part(0)], complete: false }], state);
    expect(currentPart(state)?.index).toBe(0);
    expect(buttonState(state, 'm1')).toBe('playing');

    // Part 0 ends before part 1 arrived: the player waits.
    state = run([{ type: 'ended', messageId: 'm1', index: 0 }], state);
    expect(state.active?.phase).toBe('waiting');
    expect(currentPart(state)).toBeNull();

    // Part 2 arriving first does not jump the queue.
    state = run([{ type: 'part', messageId: 'm1', part: part(2, true) }], state);
    expect(currentPart(state)).toBeNull();
    state = run([{ type: 'part', messageId: 'm1', part: part(1) }], state);
    expect(currentPart(state)?.index).toBe(1);

    state = run([{ type: 'ended', messageId: 'm1', index: 1 }], state);
    expect(currentPart(state)?.index).toBe(2);
    state = run([{ type: 'ended', messageId: 'm1', index: 2 }], state);
    expect(state.active).toBeNull();
    expect(buttonState(state, 'm1')).toBe('idle');
    expect(state.spoken.m1?.complete).toBe(true);
  });

  it('starts from parts that arrive before the answer, and the answer does not restart them', () => {
    let state = run([
      { type: 'play', messageId: 'm1' },
      { type: 'part', messageId: 'm1', part: part(0) },
    ]);
    const playing = currentPart(state);
    expect(playing?.index).toBe(0);
    state = run([{ type: 'answer', messageId: 'm1', parts: [{ ...part(0) }], complete: false }], state);
    expect(currentPart(state)).toBe(playing);
  });

  it('a complete answer plays through without waiting, and a replay asks nothing of the server', () => {
    let state = run([
      { type: 'play', messageId: 'm1' },
      { type: 'answer', messageId: 'm1', parts: [part(0), part(1, true)], complete: true },
      { type: 'ended', messageId: 'm1', index: 0 },
    ]);
    expect(currentPart(state)?.index).toBe(1);
    state = run([{ type: 'ended', messageId: 'm1', index: 1 }], state);
    expect(state.active).toBeNull();
    expect(needsRequest(state, 'm1')).toBe(false);
    expect(needsRequest(state, 'm2')).toBe(true);

    state = run([{ type: 'play', messageId: 'm1' }], state);
    expect(currentPart(state)?.index).toBe(0);
  });

  it('a message spoken only in part is asked for again', () => {
    const state = run([
      { type: 'play', messageId: 'm1' },
      { type: 'answer', messageId: 'm1', parts: [part(0)], complete: false },
      { type: 'stop' },
    ]);
    expect(state.active).toBeNull();
    expect(needsRequest(state, 'm1')).toBe(true);
  });

  it('shows a failure of its own message and ignores the ends and failures of others', () => {
    let state = run([
      { type: 'play', messageId: 'm1' },
      { type: 'answer', messageId: 'm1', parts: [part(0)], complete: false },
      { type: 'ended', messageId: 'm2', index: 0 },
      { type: 'failed', messageId: 'm2', code: 50000, msg: 'x' },
    ]);
    expect(currentPart(state)?.index).toBe(0);
    state = run([{ type: 'failed', messageId: 'm1', code: 40004, msg: 'no coins' }], state);
    expect(buttonState(state, 'm1')).toBe('failed');
    expect(state.active?.failure).toEqual({ code: 40004, msg: 'no coins' });
    expect(currentPart(state)).toBeNull();
    // A late part neither revives the failed playback nor is lost.
    state = run([{ type: 'part', messageId: 'm1', part: part(1) }], state);
    expect(buttonState(state, 'm1')).toBe('failed');
    expect(state.spoken.m1?.parts.map((p) => p.index)).toEqual([0, 1]);
  });

  it('playing another message stops the first', () => {
    const state = run([
      { type: 'play', messageId: 'm1' },
      { type: 'answer', messageId: 'm1', parts: [part(0)], complete: false },
      { type: 'play', messageId: 'm2' },
    ]);
    expect(buttonState(state, 'm1')).toBe('idle');
    expect(buttonState(state, 'm2')).toBe('loading');
  });
});

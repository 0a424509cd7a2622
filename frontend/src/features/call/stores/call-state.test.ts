import { describe, expect, it } from 'vitest';
import { callReducer, isLive, READY_CALL, type CallAction, type CallState } from '@/features/call/stores/call-state';

const run = (actions: CallAction[], from: CallState = READY_CALL) => actions.reduce(callReducer, from);
const open = run([{ type: 'start' }, { type: 'started', callId: 'c1', coinPerAnswer: 2 }]);

describe('callReducer', () => {
  it('goes ready → starting → listening on callStarted', () => {
    const starting = run([{ type: 'start' }]);
    expect(starting.phase).toBe('starting');
    expect(isLive(starting)).toBe(false);
    expect(open).toMatchObject({ phase: 'listening', callId: 'c1', coinPerAnswer: 2 });
    expect(isLive(open)).toBe(true);
  });

  it('keeps why a start failed, and can start again', () => {
    const failed = run([
      { type: 'start' },
      { type: 'startFailed', failure: { kind: 'microphone', problem: 'denied' } },
    ]);
    expect(failed).toMatchObject({ phase: 'failed', failure: { kind: 'microphone', problem: 'denied' } });
    expect(run([{ type: 'start' }], failed)).toMatchObject({ phase: 'starting', failure: null });
  });

  it('runs a turn: hearing, heard, the reply written, spoken, listening again', () => {
    const hearing = run([{ type: 'hearing' }], open);
    expect(hearing.phase).toBe('hearing');
    const heard = run([{ type: 'heard', text: ' Hello there ' }], hearing);
    expect(heard.phase).toBe('thinking');
    expect(heard.transcript).toEqual([{ id: 'u1', speaker: 'user', text: 'Hello there', interrupted: false }]);
    const written = run(
      [
        { type: 'replyDelta', replyId: 'r1', delta: 'Hi', offset: 0 },
        { type: 'replyDelta', replyId: 'r1', delta: ' you!', offset: 2 },
      ],
      heard,
    );
    expect(written.transcript[1]).toEqual({ id: 'r1', speaker: 'character', text: 'Hi you!', interrupted: false });
    const speaking = run([{ type: 'speaking', speaking: true }], written);
    expect(speaking.phase).toBe('speaking');
    const done = run(
      [
        { type: 'replyDone', replyId: 'r1', text: 'Hi you! How are you?', cancelled: false },
        { type: 'speaking', speaking: false },
      ],
      speaking,
    );
    expect(done.phase).toBe('listening');
    expect(done.transcript[1]!.text).toBe('Hi you! How are you?');
  });

  it('goes back to listening when nothing was recognised, with no turn', () => {
    const state = run([{ type: 'hearing' }, { type: 'heard', text: '' }], open);
    expect(state.phase).toBe('listening');
    expect(state.transcript).toEqual([]);
  });

  it('marks her answer interrupted on barge-in and hears the user', () => {
    const state = run(
      [
        { type: 'heard', text: 'Tell me a story' },
        { type: 'replyDelta', replyId: 'r1', delta: 'Once upon a time', offset: 0 },
        { type: 'speaking', speaking: true },
        { type: 'interrupted' },
        // The player says she stopped: the user's turn goes on.
        { type: 'speaking', speaking: false },
      ],
      open,
    );
    expect(state.phase).toBe('hearing');
    expect(state.transcript[1]).toMatchObject({ id: 'r1', interrupted: true });
  });

  it('shows a failed turn and goes on listening', () => {
    const state = run(
      [
        { type: 'heard', text: 'Hi' },
        { type: 'turnFailed', code: 50000, msg: 'stt' },
      ],
      open,
    );
    expect(state).toMatchObject({ phase: 'listening', notice: { code: 50000 } });
    expect(run([{ type: 'heard', text: 'Again' }], state).notice).toBeNull();
  });

  it('ends with what the call cost; later events change nothing', () => {
    const ended = run(
      [{ type: 'ending' }, { type: 'ended', summary: { reason: 'user', answers: 2, coinSpent: 4 } }],
      open,
    );
    expect(ended).toMatchObject({ phase: 'ended', summary: { reason: 'user', answers: 2, coinSpent: 4 } });
    expect(
      run(
        [
          { type: 'heard', text: 'late' },
          { type: 'speaking', speaking: true },
        ],
        ended,
      ),
    ).toBe(ended);
  });
});

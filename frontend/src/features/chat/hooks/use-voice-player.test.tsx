import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'jotai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { store, userInfoAtom } from '@/app/store';
import { useVoicePlayer } from '@/features/chat/hooks/use-voice-player';
import { buttonState } from '@/features/chat/stores/voice-playback';
import type { UserInfo } from '@/lib/api-types';
import { startRealtime } from '@/lib/realtime';
import { FakeSocket } from '@/test/fake-socket';
import { serveApi, type FakeReply } from '@/test/fake-api';

const part = (index: number, last = false) => ({ index, url: `/media/voice-m1-${index}`, durationMs: 800, last });

/** A conversation's voice: one audio element and a play button for message m1. */
function Player() {
  const { state, audioRef, toggle } = useVoicePlayer('gf-001');
  return (
    <>
      <audio ref={audioRef} data-testid="audio" />
      <button
        type="button"
        onClick={() => void toggle('m1')}
        data-testid="play"
        data-state={buttonState(state, 'm1')}
        data-failure={state.active?.failure?.code ?? ''}
      />
    </>
  );
}

let socket: FakeSocket;
let stop: () => void;
let played: string[];

function renderPlayer(speak: FakeReply) {
  const calls = serveApi({ '/user/v1/voice/speak': speak });
  render(
    <Provider store={store}>
      <Player />
    </Provider>,
  );
  return calls;
}

const audio = () => screen.getByTestId('audio') as HTMLAudioElement;
const ended = () => act(() => audio().onended?.(new Event('ended')));

beforeEach(() => {
  played = [];
  vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(function (this: HTMLMediaElement) {
    played.push(this.getAttribute('src') ?? '');
    return Promise.resolve();
  });
  vi.spyOn(HTMLMediaElement.prototype, 'pause').mockImplementation(() => undefined);
  act(() => store.set(userInfoAtom, { userId: 'u1' } as UserInfo));
  stop = startRealtime({ createSocket: () => (socket = new FakeSocket()), refreshUser: async () => undefined });
  socket.say('hello', { userId: 'u1', coin: 100 });
});
afterEach(() => {
  cleanup();
  stop();
  act(() => store.set(userInfoAtom, null));
  vi.restoreAllMocks();
});

describe('useVoicePlayer', () => {
  it('plays the answer’s first part, then each voicePart in order, and replays without asking again', async () => {
    const calls = renderPlayer({ code: 200, data: { messageId: 'm1', parts: [part(0)], complete: false, coin: 98 } });
    fireEvent.click(screen.getByTestId('play'));
    await waitFor(() => expect(played).toEqual(['/media/voice-m1-0']));
    expect(calls.filter((c) => c.path === '/user/v1/voice/speak').map((c) => c.payload)).toEqual([
      { characterId: 'gf-001', messageId: 'm1' },
    ]);
    expect(screen.getByTestId('play')).toHaveAttribute('data-state', 'playing');

    // Another character's parts are not this conversation's.
    socket.say('voicePart', { characterId: 'gf-002', messageId: 'm1', part: part(1) });
    ended();
    expect(screen.getByTestId('play')).toHaveAttribute('data-state', 'loading');
    socket.say('voicePart', { characterId: 'gf-001', messageId: 'm1', part: part(1, true) });
    expect(played).toEqual(['/media/voice-m1-0', '/media/voice-m1-1']);
    ended();
    expect(screen.getByTestId('play')).toHaveAttribute('data-state', 'idle');

    fireEvent.click(screen.getByTestId('play'));
    expect(played).toEqual(['/media/voice-m1-0', '/media/voice-m1-1', '/media/voice-m1-0']);
    expect(calls.filter((c) => c.path === '/user/v1/voice/speak')).toHaveLength(1);
  });

  it('stops when pressed again while playing', async () => {
    renderPlayer({ code: 200, data: { messageId: 'm1', parts: [part(0), part(1, true)], complete: true, coin: 98 } });
    fireEvent.click(screen.getByTestId('play'));
    await waitFor(() => expect(screen.getByTestId('play')).toHaveAttribute('data-state', 'playing'));
    fireEvent.click(screen.getByTestId('play'));
    expect(screen.getByTestId('play')).toHaveAttribute('data-state', 'idle');
    expect(HTMLMediaElement.prototype.pause).toHaveBeenCalled();
  });

  it('shows a refusal for too few tokens, and a voiceFailed while speaking', async () => {
    renderPlayer({ code: 40004, msg: 'not enough tokens' });
    fireEvent.click(screen.getByTestId('play'));
    await waitFor(() => expect(screen.getByTestId('play')).toHaveAttribute('data-state', 'failed'));
    expect(screen.getByTestId('play')).toHaveAttribute('data-failure', '40004');
    expect(played).toEqual([]);
  });

  it('a voiceFailed event ends the message being spoken', async () => {
    renderPlayer({ code: 200, data: { messageId: 'm1', parts: [part(0)], complete: false, coin: 98 } });
    fireEvent.click(screen.getByTestId('play'));
    await waitFor(() => expect(played).toHaveLength(1));
    socket.say('voiceFailed', {
      characterId: 'gf-001',
      messageId: 'm1',
      code: 50000,
      msg: 'synthesiser failed',
      refunded: 0,
    });
    expect(screen.getByTestId('play')).toHaveAttribute('data-failure', '50000');
  });
});

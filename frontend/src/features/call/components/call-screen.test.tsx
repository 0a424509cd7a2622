// The call screen and its hook against the realtime client on a FakeSocket (the server's
// side of the socket) and a microphone that plays frames the test makes: the state machine
// start → callStarted → audio frames sent → callHeard → callSpeech queued → barge-in → end.
import { act, fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'jotai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { store, userInfoAtom } from '@/app/store';
import CallScreen from '@/features/call/components/call-screen';
import type { CapturedFrame } from '@/features/call/lib/capture-encoder';
import { FRAME_SAMPLES } from '@/features/call/lib/capture-encoder';
import { MicrophoneError, type OpenMicrophone } from '@/features/call/lib/microphone';
import { encodeMulaw } from '@/features/call/lib/mulaw';
import type { UserInfo } from '@/lib/api-types';
import { startRealtime } from '@/lib/realtime';
import { FakeSocket } from '@/test/fake-socket';
import en from '../../../../public/locales/en/call.json';

/** A microphone the test speaks into: `say(frame)` is one 100 ms frame from the worklet. */
class TestMicrophone {
  onFrame: ((frame: CapturedFrame) => void) | null = null;
  muted = false;
  closed = false;
  open: OpenMicrophone = async (onFrame) => {
    this.onFrame = onFrame;
    return {
      setMuted: (muted) => {
        this.muted = muted;
      },
      close: () => {
        this.closed = true;
      },
    };
  };
  say(frame: CapturedFrame) {
    act(() => this.onFrame?.(frame));
  }
}

/** A 100 ms frame of a tone at `amplitude` (0: silence), encoded as the worklet does. */
function frame(amplitude: number): CapturedFrame {
  const samples = new Float32Array(FRAME_SAMPLES);
  for (let i = 0; i < samples.length; i += 1) samples[i] = amplitude * Math.sin((2 * Math.PI * 220 * i) / 16_000);
  return { audio: encodeMulaw(samples), rms: amplitude / Math.SQRT2 };
}

const part = (index: number, last = false) => ({ index, url: `/media/voice-r1-${index}.mp3`, durationMs: 900, last });

let socket: FakeSocket;
let stopRealtime: () => void;
let played: string[];
let paused: number;

function sent(action: string) {
  return socket.sent.filter((frame) => (frame as { action: string }).action === action) as {
    action: string;
    data: Record<string, unknown>;
  }[];
}

function renderScreen(microphone: OpenMicrophone, onClose = vi.fn()) {
  render(
    <Provider store={store}>
      <CallScreen
        characterId="gf-001"
        characterName="Mia"
        characterPhoto="/mia.webp"
        creditsLeft={3}
        onClose={onClose}
        openMicrophone={microphone}
      />
    </Provider>,
  );
  return onClose;
}

async function startCall(mic: TestMicrophone) {
  renderScreen(mic.open);
  await act(async () => {
    fireEvent.click(screen.getByTestId('call-start'));
  });
}

const phase = () => screen.getByTestId('call-screen').dataset.phase;
const audio = () => screen.getByTestId('call-audio') as HTMLAudioElement;

beforeEach(() => {
  // jsdom has no media queries: a wide screen (the call is a panel).
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: false,
    media: query,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  }));
  played = [];
  paused = 0;
  vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(function (this: HTMLMediaElement) {
    played.push(this.getAttribute('src') ?? '');
    return Promise.resolve();
  });
  vi.spyOn(HTMLMediaElement.prototype, 'pause').mockImplementation(() => {
    paused += 1;
  });
  act(() => store.set(userInfoAtom, { userId: 'u1', userVipType: 0, coin: 100 } as UserInfo));
  stopRealtime = startRealtime({ createSocket: () => (socket = new FakeSocket()), refreshUser: async () => undefined });
  socket.say('hello', { userId: 'u1', coin: 100 });
});

afterEach(() => {
  stopRealtime();
  act(() => store.set(userInfoAtom, null));
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('the call screen', () => {
  it('shows the cost before the call: per answer, and the free messages of a free user', () => {
    renderScreen(new TestMicrophone().open);
    expect(phase()).toBe('ready');
    expect(screen.getByTestId('call-cost-answer')).toHaveTextContent(en.cost.replace('{{tokens}}', '0.2'));
    expect(screen.getByTestId('call-cost-free')).toHaveTextContent(en.freeMessagesLeft.replace('{{left}}', '3'));
    expect(screen.getByTestId('call-character-name')).toHaveTextContent('Mia');
    expect(socket.sent).toEqual([]);
  });

  it('runs a call: start, audio up, the heard words, her answer played, barge-in, end', async () => {
    const mic = new TestMicrophone();
    await startCall(mic);
    expect(phase()).toBe('starting');
    expect(sent('callStart')).toEqual([{ action: 'callStart', data: { characterId: 'gf-001' } }]);

    // Spoken before the server named the call: kept, and sent once it has.
    mic.say(frame(0.001));
    expect(sent('callAudio')).toEqual([]);
    socket.say('callStarted', {
      callId: 'c1',
      characterId: 'gf-001',
      voiceId: 'af_heart',
      sampleRate: 16000,
      encoding: 'mulaw',
      coinPerAnswer: 2,
      language: 'en',
    });
    expect(phase()).toBe('listening');
    mic.say(frame(0.001));
    mic.say(frame(0.3));
    const audioFrames = sent('callAudio');
    expect(audioFrames.map((f) => [f.data.callId, f.data.seq])).toEqual([
      ['c1', 0],
      ['c1', 1],
      ['c1', 2],
    ]);
    // 1,600 μ-law bytes: 2,136 base64 characters (/work/call-protocol.md).
    const bytes = Uint8Array.from(atob(audioFrames[2]!.data.audio as string), (c) => c.charCodeAt(0));
    expect(bytes).toEqual(frame(0.3).audio);
    expect((audioFrames[2]!.data.audio as string).length).toBe(2136);

    socket.say('callHearing', { callId: 'c1' });
    expect(phase()).toBe('hearing');
    socket.say('callHeard', { callId: 'c1', text: 'Hello Mia how are you', durationMs: 1800 });
    expect(phase()).toBe('thinking');
    socket.say('chatDelta', { characterId: 'gf-001', replyId: 'r1', delta: 'I am fine.', offset: 0 });
    socket.say('chatDelta', { characterId: 'gf-001', replyId: 'r1', delta: ' And you?', offset: 10 });
    const lines = () =>
      screen
        .getAllByTestId('call-line')
        .map((line) => [line.dataset.speaker, line.querySelector('[data-testid="call-line-text"]')?.textContent]);
    expect(lines()).toEqual([
      ['user', 'Hello Mia how are you'],
      ['character', 'I am fine. And you?'],
    ]);

    // Her parts play in order; one that comes while another plays waits.
    socket.say('callSpeech', { callId: 'c1', replyId: 'r1', part: part(1) });
    expect(phase()).toBe('speaking');
    socket.say('callSpeech', { callId: 'c1', replyId: 'r1', part: part(2) });
    expect(played).toEqual(['/media/voice-r1-1.mp3']);
    act(() => audio().onended?.(new Event('ended')));
    expect(played).toEqual(['/media/voice-r1-1.mp3', '/media/voice-r1-2.mp3']);

    // The user talks over her: she stops at once, the rest is dropped, the server is told.
    const pausesBefore = paused;
    socket.say('callSpeech', { callId: 'c1', replyId: 'r1', part: part(3) });
    mic.say(frame(0.001));
    mic.say(frame(0.4));
    expect(sent('callInterrupt')).toEqual([]);
    mic.say(frame(0.4));
    expect(sent('callInterrupt')).toEqual([{ action: 'callInterrupt', data: { callId: 'c1' } }]);
    expect(paused).toBeGreaterThan(pausesBefore);
    expect(audio().getAttribute('src')).toBeNull();
    expect(phase()).toBe('hearing');
    // A late part of the cut answer is not played.
    socket.say('callSpeech', { callId: 'c1', replyId: 'r1', part: part(4, true) });
    expect(played).toHaveLength(2);
    socket.say('chatDone', {
      characterId: 'gf-001',
      replyId: 'r1',
      message: { messageId: 'r1', speaker: 'character', content: 'I am fine. And you?', createdAt: 1 },
      finishReason: 'cancelled',
      cut: false,
      recalled: null,
    });
    expect(screen.getByText(en.interrupted)).toBeInTheDocument();

    // Mute: nothing more goes up.
    const framesBefore = sent('callAudio').length;
    fireEvent.click(screen.getByTestId('call-mute'));
    expect(mic.muted).toBe(true);
    mic.say(frame(0.3));
    expect(sent('callAudio')).toHaveLength(framesBefore);
    fireEvent.click(screen.getByTestId('call-mute'));

    // End: callEnd, then what the server says it cost.
    fireEvent.click(screen.getByTestId('call-end'));
    expect(sent('callEnd')).toEqual([{ action: 'callEnd', data: { callId: 'c1' } }]);
    expect(mic.closed).toBe(true);
    expect(phase()).toBe('ending');
    socket.say('callEnded', { callId: 'c1', reason: 'user', answers: 1, coinSpent: 2 });
    expect(phase()).toBe('ended');
    expect(screen.getByTestId('call-summary-cost')).toHaveTextContent(
      en.summary.replace('{{answers}}', '1').replace('{{tokens}}', '0.2'),
    );
  });

  it('says so when the microphone is refused, and asks nothing of the server', async () => {
    const denied: OpenMicrophone = () => Promise.reject(new MicrophoneError('denied'));
    renderScreen(denied);
    await act(async () => {
      fireEvent.click(screen.getByTestId('call-start'));
    });
    expect(phase()).toBe('failed');
    expect(screen.getByTestId('call-failure')).toHaveTextContent(en.failures.denied);
    expect(socket.sent).toEqual([]);
  });

  it('shows a refused start (no coins) and lets go of the microphone', async () => {
    const mic = new TestMicrophone();
    await startCall(mic);
    socket.say('callError', { callId: null, code: 40004, msg: 'need pay' });
    expect(phase()).toBe('failed');
    expect(screen.getByTestId('call-failure')).toHaveTextContent(en.failures.needPay);
    expect(mic.closed).toBe(true);
  });

  it('ends the call when the screen closes', async () => {
    const mic = new TestMicrophone();
    const onClose = vi.fn();
    renderScreen(mic.open, onClose);
    await act(async () => {
      fireEvent.click(screen.getByTestId('call-start'));
    });
    socket.say('callStarted', {
      callId: 'c9',
      characterId: 'gf-001',
      voiceId: 'v',
      sampleRate: 16000,
      encoding: 'mulaw',
      coinPerAnswer: 2,
      language: 'en',
    });
    fireEvent.click(screen.getByTestId('call-close'));
    expect(onClose).toHaveBeenCalled();
    expect(sent('callEnd')).toEqual([{ action: 'callEnd', data: { callId: 'c9' } }]);
    expect(mic.closed).toBe(true);
  });
});

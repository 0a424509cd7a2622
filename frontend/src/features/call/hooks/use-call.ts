import { useAtomValue } from 'jotai';
import { useCallback, useEffect, useReducer, useRef } from 'react';
import { realtimeConnectedAtom } from '@/app/store';
import { BargeInDetector } from '@/features/call/lib/barge-in';
import { bytesToBase64 } from '@/features/call/lib/base64';
import type { CapturedFrame } from '@/features/call/lib/capture-encoder';
import {
  MicrophoneError,
  openMicrophone as openBrowserMicrophone,
  type Microphone,
  type OpenMicrophone,
} from '@/features/call/lib/microphone';
import { SpeechPlayer } from '@/features/call/lib/speech-player';
import { callReducer, READY_CALL } from '@/features/call/stores/call-state';
import { ApiCode } from '@/lib/api-types';
import { onServerEvent, sendAction } from '@/lib/realtime';

/** Frames captured before `callStarted` names the call (the user may speak at once): ~5 s. */
const MAX_EARLY_FRAMES = 50;
/** How long to wait for `callStarted`, and for `callEnded` after `callEnd`. */
export const CALL_ANSWER_TIMEOUT_MS = 15_000;

export interface UseCallOptions {
  /** The microphone; tests hand in one that plays frames they make. */
  openMicrophone?: OpenMicrophone;
}

/** What runs while a call is open; kept out of React state, since audio frames come 10 times a second. */
interface Running {
  callId: string | null;
  /** The call `end()` closed, until its `callEnded` (or the wait for it) is over. */
  ending: string | null;
  seq: number;
  early: Uint8Array[];
  microphone: Microphone | null;
  player: SpeechPlayer | null;
  muted: boolean;
  /** Answers the user talked over: their late deltas are not shown as going on. */
  interrupted: Set<string>;
  timer: ReturnType<typeof setTimeout> | null;
  /** Bumped by every start and teardown, so a start that resolves late knows it is stale. */
  generation: number;
}

/**
 * A voice call with one character (issue 32; the wire protocol of /work/call-protocol.md):
 * `start()` opens the microphone (nothing is asked of the server without one), sends
 * `callStart`, then streams 100 ms frames of 16 kHz μ-law as `callAudio`; the answer's
 * `callSpeech` parts play in order through `audioRef`; the user talking over her (an energy
 * detector on the captured frames) stops her at once and sends `callInterrupt`; `end()` sends
 * `callEnd` and shows what `callEnded` says it cost. Leaving (unmount, page hide) ends the call.
 */
export function useCall(characterId: string, { openMicrophone = openBrowserMicrophone }: UseCallOptions = {}) {
  const [state, dispatch] = useReducer(callReducer, READY_CALL);
  const connected = useAtomValue(realtimeConnectedAtom);
  const audioRef = useRef<HTMLAudioElement>(null);
  const detector = useRef(new BargeInDetector());
  const running = useRef<Running>({
    callId: null,
    ending: null,
    seq: 0,
    early: [],
    microphone: null,
    player: null,
    muted: false,
    interrupted: new Set(),
    timer: null,
    generation: 0,
  });

  /** Lets go of the microphone and the sound; the call itself is the caller's business. */
  const teardown = useCallback(() => {
    const run = running.current;
    run.generation += 1;
    if (run.timer !== null) clearTimeout(run.timer);
    run.timer = null;
    run.microphone?.close();
    run.microphone = null;
    run.player?.interrupt();
    run.player = null;
    run.callId = null;
    run.early = [];
  }, []);

  const sendFrame = useCallback((audio: Uint8Array) => {
    const run = running.current;
    if (!run.callId) return;
    sendAction({ action: 'callAudio', data: { callId: run.callId, seq: run.seq, audio: bytesToBase64(audio) } });
    run.seq += 1;
  }, []);

  const bargeIn = useCallback(() => {
    const run = running.current;
    const player = run.player;
    if (!run.callId || !player?.speaking) return;
    const replyId = player.replyId;
    if (replyId) run.interrupted.add(replyId);
    // The screen first, so that the player's "stopped" does not read as a finished answer.
    dispatch({ type: 'interrupted' });
    player.interrupt();
    sendAction({ action: 'callInterrupt', data: { callId: run.callId } });
  }, []);

  const onFrame = useCallback(
    (frame: CapturedFrame) => {
      const run = running.current;
      if (run.muted) return;
      const loud = detector.current.hear(frame.rms);
      if (loud && run.player?.speaking) bargeIn();
      if (run.callId) sendFrame(frame.audio);
      else if (run.early.length < MAX_EARLY_FRAMES) run.early.push(frame.audio);
    },
    [bargeIn, sendFrame],
  );

  const start = useCallback(async () => {
    const run = running.current;
    if (run.microphone || run.callId) return;
    dispatch({ type: 'start' });
    if (!connected) {
      dispatch({ type: 'startFailed', failure: { kind: 'offline' } });
      return;
    }
    const generation = ++run.generation;
    let microphone: Microphone;
    try {
      microphone = await openMicrophone(onFrame);
    } catch (error) {
      const problem = error instanceof MicrophoneError ? error.problem : 'unavailable';
      if (generation === run.generation) dispatch({ type: 'startFailed', failure: { kind: 'microphone', problem } });
      return;
    }
    // Closed, or started again, while the browser asked for the microphone.
    if (generation !== run.generation) {
      microphone.close();
      return;
    }
    run.microphone = microphone;
    microphone.setMuted(run.muted);
    run.seq = 0;
    run.interrupted.clear();
    detector.current = new BargeInDetector();
    const audio = audioRef.current;
    if (audio)
      run.player = new SpeechPlayer(audio, {
        onSpeaking: (speaking) => {
          // Only talk that starts over her is a barge-in.
          detector.current.reset();
          dispatch({ type: 'speaking', speaking });
        },
      });
    if (!sendAction({ action: 'callStart', data: { characterId } })) {
      teardown();
      dispatch({ type: 'startFailed', failure: { kind: 'offline' } });
      return;
    }
    run.timer = setTimeout(() => {
      if (run.callId || generation !== run.generation) return;
      teardown();
      dispatch({ type: 'startFailed', failure: { kind: 'offline' } });
    }, CALL_ANSWER_TIMEOUT_MS);
  }, [connected, openMicrophone, onFrame, characterId, teardown]);

  const end = useCallback(() => {
    const run = running.current;
    const callId = run.callId;
    if (!callId) {
      teardown();
      return;
    }
    sendAction({ action: 'callEnd', data: { callId } });
    dispatch({ type: 'ending' });
    teardown();
    // The summary comes with `callEnded`; a connection that is gone never sends it.
    run.ending = callId;
    run.timer = setTimeout(() => {
      if (running.current.ending !== callId) return;
      running.current.ending = null;
      dispatch({ type: 'ended', summary: { reason: 'dropped', answers: null, coinSpent: null } });
    }, CALL_ANSWER_TIMEOUT_MS);
  }, [teardown]);

  const toggleMute = useCallback(() => {
    const run = running.current;
    run.muted = !run.muted;
    run.microphone?.setMuted(run.muted);
    dispatch({ type: 'mute', muted: run.muted });
  }, []);

  // The socket's call and chat events.
  useEffect(
    () =>
      onServerEvent((event) => {
        const run = running.current;
        switch (event.event) {
          case 'hello':
            // A new socket: the call rode on the old one, and ended with it.
            if (run.callId || run.ending) {
              run.ending = null;
              teardown();
              dispatch({ type: 'ended', summary: { reason: 'dropped', answers: null, coinSpent: null } });
            }
            return;
          case 'callStarted':
            if (run.callId || !run.microphone || event.data.characterId !== characterId) return;
            if (run.timer !== null) clearTimeout(run.timer);
            run.timer = null;
            run.callId = event.data.callId;
            dispatch({ type: 'started', callId: event.data.callId, coinPerAnswer: event.data.coinPerAnswer });
            // What the user said while the call was being opened.
            for (const audio of run.early.splice(0)) sendFrame(audio);
            return;
          case 'callError':
            if (event.data.callId === null) {
              // The start was refused (no call runs, so this is ours).
              if (run.microphone && !run.callId) {
                teardown();
                dispatch({
                  type: 'startFailed',
                  failure: { kind: 'refused', code: event.data.code, msg: event.data.msg },
                });
              }
              return;
            }
            if (event.data.callId !== run.callId) return;
            // 10001 answers a frame or an interrupt that came too late: nothing the user can act on.
            if (event.data.code === ApiCode.paramError) return;
            run.player?.release();
            dispatch({ type: 'turnFailed', code: event.data.code, msg: event.data.msg });
            return;
          case 'callHearing':
            if (event.data.callId === run.callId) dispatch({ type: 'hearing' });
            return;
          case 'callHeard':
            if (event.data.callId === run.callId) dispatch({ type: 'heard', text: event.data.text });
            return;
          case 'callSpeech':
            if (event.data.callId === run.callId && !run.interrupted.has(event.data.replyId))
              run.player?.enqueue(event.data.replyId, event.data.part);
            return;
          case 'callEnded':
            if (event.data.callId !== run.callId && event.data.callId !== run.ending) return;
            run.ending = null;
            teardown();
            dispatch({
              type: 'ended',
              summary: { reason: event.data.reason, answers: event.data.answers, coinSpent: event.data.coinSpent },
            });
            return;
          case 'chatDelta':
            if (!run.callId || event.data.characterId !== characterId || run.interrupted.has(event.data.replyId))
              return;
            dispatch({
              type: 'replyDelta',
              replyId: event.data.replyId,
              delta: event.data.delta,
              offset: event.data.offset,
            });
            return;
          case 'chatDone':
            if (!run.callId || event.data.characterId !== characterId) return;
            dispatch({
              type: 'replyDone',
              replyId: event.data.replyId,
              text: event.data.message?.content ?? null,
              cancelled: event.data.finishReason === 'cancelled',
            });
            return;
          case 'chatError':
            if (!run.callId || event.data.characterId !== characterId) return;
            run.player?.release();
            dispatch({ type: 'turnFailed', code: event.data.code, msg: event.data.msg });
            return;
        }
      }),
    [characterId, sendFrame, teardown],
  );

  // Leaving ends the call: the screen closed, the page navigated away or was hidden for good.
  useEffect(() => {
    const leave = () => {
      const callId = running.current.callId;
      if (callId) sendAction({ action: 'callEnd', data: { callId } });
      teardown();
    };
    window.addEventListener('pagehide', leave);
    return () => {
      window.removeEventListener('pagehide', leave);
      leave();
    };
  }, [teardown]);

  return { state, audioRef, start, end, toggleMute };
}

/**
 * The microphone of a call: `getUserMedia` with echo cancellation and noise suppression (her
 * voice from the speakers must not come back as the user's), then an AudioWorklet
 * (capture-worklet.ts, bundled by Vite as a module of its own) that hands over 100 ms frames
 * of 16 kHz μ-law with their loudness.
 */
import captureWorkletUrl from '@/features/call/lib/capture-worklet?worker&url';
import type { CapturedFrame } from '@/features/call/lib/capture-encoder';

/** The worklet's processor name (capture-worklet.ts registers it; not imported from there,
 * which would run the worklet's code on the page). */
const CAPTURE_PROCESSOR = 'amora-call-capture';

export interface Microphone {
  /** Muted: the track is off (the browser's indicator says so) and frames are silence. */
  setMuted(muted: boolean): void;
  /** Stops capture and lets go of the device. */
  close(): void;
}

/** Why no microphone could be opened. */
export type MicrophoneProblem = 'denied' | 'unavailable';

export class MicrophoneError extends Error {
  readonly problem: MicrophoneProblem;
  constructor(problem: MicrophoneProblem, cause?: unknown) {
    super(`microphone ${problem}`, { cause });
    this.problem = problem;
  }
}

export type OpenMicrophone = (onFrame: (frame: CapturedFrame) => void) => Promise<Microphone>;

export const openMicrophone: OpenMicrophone = async (onFrame) => {
  if (!navigator.mediaDevices?.getUserMedia || typeof AudioWorkletNode === 'undefined')
    throw new MicrophoneError('unavailable');
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
    });
  } catch (error) {
    const denied =
      error instanceof DOMException && (error.name === 'NotAllowedError' || error.name === 'SecurityError');
    throw new MicrophoneError(denied ? 'denied' : 'unavailable', error);
  }
  const context = new AudioContext();
  const release = () => {
    for (const track of stream.getTracks()) track.stop();
    void context.close();
  };
  try {
    await context.audioWorklet.addModule(captureWorkletUrl);
    // Started by the user's click on Start; a context created after an await may need this.
    await context.resume();
    const source = context.createMediaStreamSource(stream);
    const node = new AudioWorkletNode(context, CAPTURE_PROCESSOR, {
      numberOfInputs: 1,
      numberOfOutputs: 1,
      channelCount: 1,
      channelCountMode: 'explicit',
    });
    // Silent, but connected to the destination so that the graph pulls the worklet.
    const mute = context.createGain();
    mute.gain.value = 0;
    source.connect(node).connect(mute).connect(context.destination);
    node.port.onmessage = (message: MessageEvent<CapturedFrame>) => onFrame(message.data);
    return {
      setMuted(muted) {
        for (const track of stream.getAudioTracks()) track.enabled = !muted;
      },
      close() {
        node.port.onmessage = null;
        source.disconnect();
        node.disconnect();
        release();
      },
    };
  } catch (error) {
    release();
    throw new MicrophoneError('unavailable', error);
  }
};

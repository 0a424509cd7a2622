/**
 * What the capture worklet does with the microphone, kept out of the worklet so that it can
 * be tested: the context-rate input down to 16 kHz, cut into 100 ms frames (1,600 samples),
 * each encoded as μ-law with its loudness (RMS of the float samples, 0–1) for the barge-in
 * detector.
 */
import { Downsampler } from '@/features/call/lib/downsample';
import { encodeMulaw } from '@/features/call/lib/mulaw';

export const CALL_SAMPLE_RATE = 16_000;
/** 100 ms at 16 kHz (/work/call-protocol.md: one `callAudio` every ~100 ms). */
export const FRAME_SAMPLES = 1_600;

export interface CapturedFrame {
  /** FRAME_SAMPLES μ-law bytes. */
  audio: Uint8Array;
  /** Root mean square of the frame's samples, 0 (silence) to 1 (full scale). */
  rms: number;
}

export class CaptureEncoder {
  private readonly downsampler: Downsampler;
  private readonly pending = new Float32Array(FRAME_SAMPLES);
  private filled = 0;

  constructor(inputRate: number) {
    this.downsampler = new Downsampler(inputRate, CALL_SAMPLE_RATE);
  }

  /** The frames this input completes, in order. */
  push(input: Float32Array): CapturedFrame[] {
    const samples = this.downsampler.push(input);
    const frames: CapturedFrame[] = [];
    let from = 0;
    while (from < samples.length) {
      const take = Math.min(FRAME_SAMPLES - this.filled, samples.length - from);
      this.pending.set(samples.subarray(from, from + take), this.filled);
      this.filled += take;
      from += take;
      if (this.filled === FRAME_SAMPLES) {
        frames.push({ audio: encodeMulaw(this.pending), rms: rootMeanSquare(this.pending) });
        this.filled = 0;
      }
    }
    return frames;
  }
}

export function rootMeanSquare(samples: Float32Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / samples.length);
}

import { describe, expect, it } from 'vitest';
import { CaptureEncoder, FRAME_SAMPLES, rootMeanSquare } from '@/features/call/lib/capture-encoder';
import { Downsampler } from '@/features/call/lib/downsample';
import { linearFromMulaw } from '@/features/call/lib/mulaw';

/** `seconds` of a sine at `hz`, sampled at `rate`. */
function sine(hz: number, rate: number, seconds: number, amplitude = 0.5): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i += 1) out[i] = amplitude * Math.sin((2 * Math.PI * hz * i) / rate);
  return out;
}

/** Feeds `input` in render quanta of 128 samples, as an AudioWorklet gets it. */
function inQuanta(downsampler: Downsampler, input: Float32Array): Float32Array {
  const parts: number[] = [];
  for (let i = 0; i < input.length; i += 128) parts.push(...downsampler.push(input.subarray(i, i + 128)));
  return Float32Array.from(parts);
}

describe('Downsampler', () => {
  it('averages each group of three at 48 kHz → 16 kHz', () => {
    const out = new Downsampler(48_000, 16_000).push(new Float32Array([0, 0.3, 0.6, 1, 1, 1, -0.3, 0, 0.3]));
    expect([...out].map((v) => Number(v.toFixed(5)))).toEqual([0.3, 1, 0]);
  });

  it('keeps a period that spans two pushes', () => {
    const downsampler = new Downsampler(48_000, 16_000);
    expect(downsampler.push(new Float32Array([0.3, 0.3]))).toHaveLength(0);
    expect([...downsampler.push(new Float32Array([0.6, 1]))].map((v) => Number(v.toFixed(5)))).toEqual([0.4]);
  });

  it.each([48_000, 44_100, 32_000, 22_050, 16_000])('gives 16,000 samples a second from %i Hz', (rate) => {
    const out = inQuanta(new Downsampler(rate, 16_000), new Float32Array(rate * 2).fill(0.25));
    expect(Math.abs(out.length - 32_000)).toBeLessThanOrEqual(1);
    expect(out.every((v) => Math.abs(v - 0.25) < 1e-6)).toBe(true);
  });

  it('keeps a 440 Hz tone at its pitch and level (44.1 kHz in)', () => {
    const out = inQuanta(new Downsampler(44_100, 16_000), sine(440, 44_100, 1));
    // Zero crossings upward: 440 a second.
    let crossings = 0;
    for (let i = 1; i < out.length; i += 1) if (out[i - 1]! < 0 && out[i]! >= 0) crossings += 1;
    expect(Math.abs(crossings - 440)).toBeLessThanOrEqual(1);
    expect(rootMeanSquare(out)).toBeCloseTo(0.5 / Math.SQRT2, 2);
  });

  it('damps a tone above the new Nyquist frequency (12 kHz from 48 kHz)', () => {
    const out = inQuanta(new Downsampler(48_000, 16_000), sine(12_000, 48_000, 0.5));
    expect(rootMeanSquare(out)).toBeLessThan(0.5 / Math.SQRT2 / 2);
  });

  it('refuses to go up', () => {
    expect(() => new Downsampler(8_000, 16_000)).toThrow(RangeError);
  });
});

describe('CaptureEncoder', () => {
  it('cuts 48 kHz input into 100 ms frames of 16 kHz μ-law with their loudness', () => {
    const encoder = new CaptureEncoder(48_000);
    const tone = sine(300, 48_000, 0.35, 0.5);
    const frames = [];
    for (let i = 0; i < tone.length; i += 128) frames.push(...encoder.push(tone.subarray(i, i + 128)));
    // 350 ms: three whole frames, the rest waits.
    expect(frames).toHaveLength(3);
    for (const frame of frames) {
      expect(frame.audio).toHaveLength(FRAME_SAMPLES);
      expect(frame.rms).toBeCloseTo(0.5 / Math.SQRT2, 2);
      // The decoded frame is the tone again (μ-law keeps its level within a few per cent).
      const decoded = Float32Array.from(frame.audio, (byte) => linearFromMulaw(byte) / 32768);
      expect(rootMeanSquare(decoded)).toBeCloseTo(0.5 / Math.SQRT2, 1);
    }
  });

  it('frames silence as μ-law zero (0xFF) with no loudness', () => {
    const frames = new CaptureEncoder(16_000).push(new Float32Array(FRAME_SAMPLES));
    expect(frames).toHaveLength(1);
    expect(frames[0]!.audio.every((byte) => byte === 0xff)).toBe(true);
    expect(frames[0]!.rms).toBe(0);
  });
});

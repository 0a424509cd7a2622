import { describe, expect, it } from 'vitest';
import { encodeMulaw, linearFromMulaw, mulawFromLinear } from '@/features/call/lib/mulaw';

// Reference values of G.711 μ-law from CPython 3.11's audioop (lin2ulaw / ulaw2lin on 16-bit
// samples), an implementation independent of this one: [16-bit sample, μ-law byte].
const ENCODED: [number, number][] = [
  [0, 255],
  [1, 255],
  [3, 255],
  [-1, 126],
  [-5, 126],
  [30, 251],
  [33, 251],
  [-32, 123],
  [-33, 122],
  [100, 242],
  [-100, 114],
  [123, 240],
  [500, 220],
  [-500, 92],
  [1000, 206],
  [-1000, 78],
  [2000, 191],
  [4000, 175],
  [-4000, 47],
  [8000, 160],
  [-8000, 32],
  [8159, 159],
  [16000, 144],
  [-16000, 16],
  [32000, 128],
  [32635, 128],
  [32767, 128],
  [-32767, 0],
  [-32768, 0],
];

// [μ-law byte, 16-bit sample] from the same reference.
const DECODED: [number, number][] = [
  [0x00, -32124],
  [0x01, -31100],
  [0x0f, -16764],
  [0x10, -15996],
  [0x7e, -8],
  [0x7f, 0],
  [0x80, 32124],
  [0x9c, 9852],
  [0xf2, 104],
  [0xfe, 8],
  [0xff, 0],
];

describe('G.711 μ-law', () => {
  it.each(ENCODED)('encodes %i as %i', (sample, byte) => {
    expect(mulawFromLinear(sample)).toBe(byte);
  });

  it.each(DECODED)('decodes %i as %i', (byte, sample) => {
    expect(linearFromMulaw(byte)).toBe(sample);
  });

  it('round-trips within the step of each segment (about 3 % of the magnitude)', () => {
    for (let sample = -32000; sample <= 32000; sample += 37) {
      const back = linearFromMulaw(mulawFromLinear(sample));
      expect(Math.abs(back - sample)).toBeLessThanOrEqual(Math.max(16, Math.abs(sample) * 0.035));
    }
  });

  it('encodes Web Audio floats, clamping what is past full scale', () => {
    const bytes = encodeMulaw(new Float32Array([0, 1, -1, 2, -2, 1000 / 32767]));
    expect([...bytes]).toEqual([255, 128, 0, 128, 0, 206]);
  });
});

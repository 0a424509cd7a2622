/**
 * G.711 μ-law, the encoding the call's audio goes up in (/work/call-protocol.md: 16 kHz mono,
 * 8 bits a sample, as Twilio Media Streams carries it). The classic Sun reference algorithm
 * on 14-bit samples (the 16-bit input shifted right by two), which is also what CPython's
 * `audioop.lin2ulaw` computes: the unit tests hold it to values taken from there.
 */

/** Bias added before the segment search (33 in 14-bit units, 0x84 in 16-bit). */
const BIAS = 0x21;
/** The largest 14-bit magnitude that still fits once biased. */
const CLIP = 8159;
/** The upper end of each of the eight segments, in biased 14-bit units. */
const SEGMENT_ENDS = [0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff, 0x1fff];

/** One 16-bit signed sample as its μ-law byte. */
export function mulawFromLinear(sample: number): number {
  let pcm = Math.max(-32768, Math.min(32767, Math.trunc(sample))) >> 2;
  let mask: number;
  if (pcm < 0) {
    pcm = -pcm;
    mask = 0x7f;
  } else {
    mask = 0xff;
  }
  if (pcm > CLIP) pcm = CLIP;
  pcm += BIAS;
  let segment = 0;
  while (segment < 8 && pcm > SEGMENT_ENDS[segment]!) segment += 1;
  if (segment >= 8) return 0x7f ^ mask;
  return ((segment << 4) | ((pcm >> (segment + 1)) & 0x0f)) ^ mask;
}

/** One μ-law byte as the 16-bit sample it stands for (the middle of its step). */
export function linearFromMulaw(byte: number): number {
  const value = ~byte & 0xff;
  let magnitude = ((value & 0x0f) << 3) + 0x84;
  magnitude <<= (value & 0x70) >> 4;
  return value & 0x80 ? 0x84 - magnitude : magnitude - 0x84;
}

/** Float samples in [-1, 1] (Web Audio's) as μ-law bytes. */
export function encodeMulaw(samples: Float32Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i += 1) {
    const clamped = Math.max(-1, Math.min(1, samples[i]!));
    out[i] = mulawFromLinear(Math.round(clamped * 32767));
  }
  return out;
}

/**
 * Resampling the microphone (the audio context's rate: 48 kHz or 44.1 kHz, mostly) down to
 * the call's 16 kHz. Each output sample is the mean of the input samples of its period: a
 * box filter, enough against aliasing for speech that the recogniser hears at 16 kHz, and
 * cheap enough for the audio thread. Stateful, so a period may span two render quanta.
 */
export class Downsampler {
  /** Input samples per output sample (3 for 48 kHz → 16 kHz). */
  private readonly ratio: number;
  /** Where the period being summed ends, counted in input samples since the last output. */
  private boundary: number;
  private sum = 0;
  private count = 0;

  constructor(inputRate: number, outputRate: number) {
    if (!(inputRate > 0 && outputRate > 0)) throw new RangeError('sample rates must be positive');
    if (outputRate > inputRate) throw new RangeError('only down: the output rate must not exceed the input rate');
    this.ratio = inputRate / outputRate;
    this.boundary = this.ratio;
  }

  /** The output samples that the input completes (the rest waits for the next call). */
  push(input: Float32Array): Float32Array {
    const out = new Float32Array(Math.ceil((input.length + this.count) / this.ratio) + 1);
    let written = 0;
    for (let i = 0; i < input.length; i += 1) {
      this.sum += input[i]!;
      this.count += 1;
      if (this.count >= this.boundary) {
        out[written] = this.sum / this.count;
        written += 1;
        // A fractional ratio (44.1 kHz) carries its remainder into the next period.
        this.boundary = this.boundary - this.count + this.ratio;
        this.sum = 0;
        this.count = 0;
      }
    }
    return out.subarray(0, written);
  }
}

/**
 * Barge-in: the user starting to talk while the character speaks. The microphone runs with
 * the browser's echo cancellation, so what is left of her voice in it is quiet; the user's
 * own speech is not. A frame counts as speech when its loudness is over a threshold well above
 * a quiet room's and its own noise floor; a few such frames in a row (not one click or cough) is
 * the user talking.
 */
export interface BargeInOptions {
  /** RMS (0–1) under which a frame is never speech: about -36 dBFS. */
  minSpeechRms?: number;
  /** How far over the room's noise floor speech must be. */
  overFloor?: number;
  /** Consecutive speech frames that make a barge-in (2 frames of 100 ms). */
  framesNeeded?: number;
}

export class BargeInDetector {
  private readonly minSpeechRms: number;
  private readonly overFloor: number;
  private readonly framesNeeded: number;
  /** The quietest recent loudness: the room with nobody talking. */
  private floor = Number.POSITIVE_INFINITY;
  private loudInARow = 0;

  constructor({ minSpeechRms = 0.016, overFloor = 4, framesNeeded = 2 }: BargeInOptions = {}) {
    this.minSpeechRms = minSpeechRms;
    this.overFloor = overFloor;
    this.framesNeeded = framesNeeded;
  }

  /** Feeds one frame's loudness; true on the frame that completes a barge-in. */
  hear(rms: number): boolean {
    // The floor follows the room down at once and up slowly (speech must not raise it).
    this.floor = rms < this.floor ? rms : this.floor * 0.98 + rms * 0.02;
    const threshold = Math.max(this.minSpeechRms, this.floor * this.overFloor);
    if (rms < threshold) {
      this.loudInARow = 0;
      return false;
    }
    this.loudInARow += 1;
    return this.loudInARow === this.framesNeeded;
  }

  /** Forgets the run of loud frames (after a barge-in, or when she starts a new answer). */
  reset(): void {
    this.loudInARow = 0;
  }
}

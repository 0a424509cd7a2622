import { describe, expect, it } from 'vitest';
import { BargeInDetector } from '@/features/call/lib/barge-in';

describe('BargeInDetector', () => {
  it('fires once on the second loud frame in a row, not on quiet ones', () => {
    const detector = new BargeInDetector();
    const heard = [0.002, 0.003, 0.002, 0.1, 0.12, 0.11, 0.1].map((rms) => detector.hear(rms));
    expect(heard).toEqual([false, false, false, false, true, false, false]);
  });

  it('ignores a single click between quiet frames', () => {
    const detector = new BargeInDetector();
    const heard = [0.002, 0.2, 0.002, 0.2, 0.002].map((rms) => detector.hear(rms));
    expect(heard.some(Boolean)).toBe(false);
  });

  it('needs more than a noisy room: four times its floor', () => {
    const detector = new BargeInDetector();
    for (let i = 0; i < 20; i += 1) detector.hear(0.03);
    expect([0.05, 0.05, 0.05].map((rms) => detector.hear(rms)).some(Boolean)).toBe(false);
    expect([0.3, 0.3].map((rms) => detector.hear(rms))).toEqual([false, true]);
  });

  it('starts counting again after a reset', () => {
    const detector = new BargeInDetector();
    detector.hear(0.001);
    detector.hear(0.2);
    detector.reset();
    expect(detector.hear(0.2)).toBe(false);
    expect(detector.hear(0.2)).toBe(true);
  });
});

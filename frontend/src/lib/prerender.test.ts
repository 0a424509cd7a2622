import { afterEach, describe, expect, it, vi } from 'vitest';
import { markRequestFinished, markRequestStarted } from '@/lib/prerender';

afterEach(() => {
  vi.useRealTimers();
  window.prerenderReady = undefined;
});

describe('window.prerenderReady', () => {
  it('becomes true 300 ms after the last request ends', () => {
    vi.useFakeTimers();
    markRequestStarted();
    markRequestStarted();
    markRequestFinished();
    vi.advanceTimersByTime(1000);
    expect(window.prerenderReady).toBeUndefined();
    markRequestFinished();
    vi.advanceTimersByTime(299);
    expect(window.prerenderReady).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(window.prerenderReady).toBe(true);
  });

  it('waits again when a new request starts within the 300 ms', () => {
    vi.useFakeTimers();
    markRequestStarted();
    markRequestFinished();
    vi.advanceTimersByTime(200);
    markRequestStarted();
    vi.advanceTimersByTime(500);
    expect(window.prerenderReady).toBeUndefined();
    markRequestFinished();
    vi.advanceTimersByTime(300);
    expect(window.prerenderReady).toBe(true);
  });
});

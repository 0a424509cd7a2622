/**
 * The first-subscription promo countdown (spec sections 4 and 9): the deadline is the start
 * of the UTC day two days ahead, kept in storage, and renewed once it has passed.
 */
import { STORAGE_KEYS, storage, type KeyValueStorage } from '@/lib/storage';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Start (00:00 UTC) of the day two days after the UTC day of `now`. */
export function nextDeadline(now: number): number {
  const day = new Date(now);
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()) + 2 * DAY_MS;
}

/** The stored deadline if it is still ahead; otherwise a new one, stored. */
export function currentDeadline(now: number, store: KeyValueStorage = storage): number {
  const raw = store.get(STORAGE_KEYS.countdownDeadline);
  const stored = raw === null ? NaN : Number(raw);
  if (Number.isFinite(stored) && stored > now) return stored;
  return renewDeadline(now, store);
}

/** Called when the countdown reaches zero: drop the old deadline and make a new one. */
export function renewDeadline(now: number, store: KeyValueStorage = storage): number {
  store.remove(STORAGE_KEYS.countdownDeadline);
  const fresh = nextDeadline(now);
  store.set(STORAGE_KEYS.countdownDeadline, String(fresh));
  return fresh;
}

export interface Remaining {
  hours: number;
  minutes: number;
  seconds: number;
}

/** Whole hours (may exceed 24), minutes and seconds left; never negative. */
export function splitRemaining(ms: number): Remaining {
  const total = Math.max(0, Math.floor(ms / 1000));
  return { hours: Math.floor(total / 3600), minutes: Math.floor((total % 3600) / 60), seconds: total % 60 };
}

/**
 * Ids of messages, memories and images are time-ordered decimal strings beyond JavaScript's
 * safe integers: compare them with `compareEntryIds`, never as numbers.
 */

/** Orders time-ordered ids (decimal strings of any length) without losing precision. */
export function compareEntryIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

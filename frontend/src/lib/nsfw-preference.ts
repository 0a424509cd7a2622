/**
 * The NSFW preference kept in storage (spec section 4): a link with `sfw=1` or `nsfw=1`
 * sets it, and the API client sends it with every request.
 */
import { STORAGE_KEYS, storage } from '@/lib/storage';

/** NSFW preference: `sfw=1` stores false, `nsfw=1` stores true (spec section 4). */
export function captureNsfwFlag(search: string): void {
  const params = new URLSearchParams(search);
  if (params.get('sfw') === '1') storage.set(STORAGE_KEYS.localNsfw, 'false');
  else if (params.get('nsfw') === '1') storage.set(STORAGE_KEYS.localNsfw, 'true');
}

export function nsfwEnabled(): boolean {
  return storage.get(STORAGE_KEYS.localNsfw) === 'true';
}

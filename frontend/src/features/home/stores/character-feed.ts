/**
 * Paging rules of the home grid (spec section 4): the first load is page 1, hasMore is true
 * only when a page comes back full (30), a failed load ends paging, and a character already
 * shown is never shown twice.
 */
import type { CharacterCard } from '@/lib/api-types';

export interface FeedState {
  list: CharacterCard[];
  /** The last page loaded; 0 before the first. */
  pageNo: number;
  hasMore: boolean;
  loading: boolean;
  /** The last load failed (paging has stopped). */
  failed: boolean;
}

export const EMPTY_FEED: FeedState = { list: [], pageNo: 0, hasMore: true, loading: false, failed: false };

export function startLoading(state: FeedState): FeedState {
  return { ...state, loading: true, failed: false };
}

export function appendPage(state: FeedState, page: CharacterCard[], pageNo: number, pageSize: number): FeedState {
  const seen = new Set(state.list.map((card) => card.characterId));
  const fresh = page.filter((card) => !seen.has(card.characterId) && (seen.add(card.characterId), true));
  return { list: [...state.list, ...fresh], pageNo, hasMore: page.length === pageSize, loading: false, failed: false };
}

export function failPage(state: FeedState): FeedState {
  return { ...state, hasMore: false, loading: false, failed: true };
}

/** Whether a scroll position is close enough to the end of the list to fetch the next page. */
export function shouldLoadMore(state: FeedState, distanceToEnd: number, threshold: number): boolean {
  return !state.loading && state.hasMore && distanceToEnd <= threshold;
}

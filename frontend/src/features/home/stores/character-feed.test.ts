import { describe, expect, it } from 'vitest';
import { appendPage, EMPTY_FEED, failPage, shouldLoadMore, startLoading } from '@/features/home/stores/character-feed';
import type { CharacterCard } from '@/lib/api-types';

const card = (id: string): CharacterCard => ({
  characterId: id,
  characterName: id,
  characterAge: 21,
  introduction: '',
  characterPhoto: `/media/${id}`,
  characterImageList: [],
  usedType: 0,
  gender: 0,
});
const page = (from: number, count: number) => Array.from({ length: count }, (_, i) => card(`c${from + i}`));

describe('home paging (spec section 4)', () => {
  it('has more only after a full page', () => {
    const full = appendPage(startLoading(EMPTY_FEED), page(0, 30), 1, 30);
    expect(full).toMatchObject({ pageNo: 1, hasMore: true, loading: false });
    const short = appendPage(startLoading(full), page(30, 12), 2, 30);
    expect(short).toMatchObject({ pageNo: 2, hasMore: false });
    expect(short.list).toHaveLength(42);
  });

  it('ends paging after an empty page', () => {
    expect(appendPage(EMPTY_FEED, [], 1, 30).hasMore).toBe(false);
  });

  it('never shows a character twice', () => {
    const first = appendPage(EMPTY_FEED, page(0, 30), 1, 30);
    const second = appendPage(first, [...page(25, 10), ...page(35, 20)], 2, 30);
    expect(second.list.map((c) => c.characterId)).toEqual(page(0, 55).map((c) => c.characterId));
    // The page was full on the wire, so there may be more.
    expect(second.hasMore).toBe(true);
  });

  it('stops paging when a load fails, keeping what it has', () => {
    const first = appendPage(EMPTY_FEED, page(0, 30), 1, 30);
    const failed = failPage(startLoading(first));
    expect(failed).toMatchObject({ hasMore: false, loading: false, failed: true, pageNo: 1 });
    expect(failed.list).toHaveLength(30);
  });

  it('loads the next page within 400 px of the end, unless busy or finished', () => {
    const ready = appendPage(EMPTY_FEED, page(0, 30), 1, 30);
    expect(shouldLoadMore(ready, 400, 400)).toBe(true);
    expect(shouldLoadMore(ready, 401, 400)).toBe(false);
    expect(shouldLoadMore(startLoading(ready), 0, 400)).toBe(false);
    expect(shouldLoadMore(failPage(ready), 0, 400)).toBe(false);
  });
});

import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { type HomePageCache, homePageCacheDataAtom, store } from '@/app/store';
import { useLatest } from '@/hooks/use-latest';
import { getCharacterList, HOME_PAGE_SIZE } from '@/lib/character-list';
import {
  appendPage,
  EMPTY_FEED,
  failPage,
  shouldLoadMore,
  startLoading,
  type FeedState,
} from '@/features/home/stores/character-feed';
import type { CharacterCard, GenderValue } from '@/lib/api-types';
import { serverData } from '@/lib/server-data';
import { trackExposure } from '@/lib/telemetry';

export const SCROLL_THRESHOLD_PX = 400;
export const SCROLL_THROTTLE_MS = 100;
export const CACHE_RESTORE_DELAY_MS = 500;

/** The grid's card of `characterId`, if it is on the page. */
export function cardElement(characterId: string): HTMLElement | null {
  return document.querySelector<HTMLElement>(
    `[data-testid="character-card"][data-character-id="${CSS.escape(characterId)}"]`,
  );
}

/** How long the opened card is held in place after returning, while pictures and banners settle. */
export const ANCHOR_HOLD_MS = 2000;

/**
 * Back where the user left: the card they opened at the same height on screen (the page
 * may be laid out wider or narrower than when they left it, so the same `scrollY` would
 * show other rows), else the same `scrollY`. Content above the grid that settles later
 * (a banner's pictures) would push the card down: for `ANCHOR_HOLD_MS` the card is put
 * back after each change of the page's size, until the user scrolls. Answers a stop.
 */
export function restoreScroll(cache: HomePageCache): () => void {
  const place = () => {
    const card = cache.anchor && cardElement(cache.anchor.characterId);
    if (card && cache.anchor) window.scrollTo(0, window.scrollY + card.getBoundingClientRect().top - cache.anchor.top);
    else window.scrollTo(0, cache.scrollY);
  };
  place();
  if (!cache.anchor || typeof ResizeObserver === 'undefined') return () => undefined;
  const observer = new ResizeObserver(place);
  observer.observe(document.body);
  const userEvents = ['wheel', 'touchstart', 'keydown', 'mousedown'] as const;
  const stop = () => {
    observer.disconnect();
    clearTimeout(timer);
    for (const name of userEvents) window.removeEventListener(name, stop);
  };
  for (const name of userEvents) window.addEventListener(name, stop, { passive: true });
  const timer = setTimeout(stop, ANCHOR_HOLD_MS);
  return stop;
}

/** The first page the server rendered this home page with, if it is this gender's. */
function servedFeed(gender: GenderValue): FeedState | null {
  const served = serverData<{ gender: number; list: CharacterCard[] }>('catalogue');
  if (!served || served.gender !== gender) return null;
  return appendPage(EMPTY_FEED, served.list, 1, HOME_PAGE_SIZE);
}

/**
 * The endless home grid for one gender: loads page 1, then the next page whenever the end
 * of the list comes within 400 px (checked at most every 100 ms); a gender change starts
 * over. Returning with a cached list restores it and, after 500 ms, the scroll position.
 */
export function useCharacterFeed(gender: GenderValue, endRef: RefObject<HTMLElement | null>) {
  // Page 1 as the server rendered it, when it did: no loading state, no second request.
  const [state, setState] = useState<FeedState>(() => servedFeed(gender) ?? EMPTY_FEED);
  const stateRef = useLatest(state);
  // Each gender gets a generation; answers for an older one are dropped.
  const generation = useRef(0);
  const inFlight = useRef(false);

  const loadPage = useCallback(
    async (pageNo: number) => {
      if (inFlight.current) return;
      inFlight.current = true;
      const myGeneration = generation.current;
      setState((s) => startLoading(s));
      let next: (s: FeedState) => FeedState;
      try {
        const envelope = await getCharacterList({ pageNo, pageSize: HOME_PAGE_SIZE, gender });
        const page = envelope.success && Array.isArray(envelope.data) ? envelope.data : null;
        next = page ? (s) => appendPage(s, page, pageNo, HOME_PAGE_SIZE) : failPage;
        if (page && page.length > 0 && myGeneration === generation.current) {
          trackExposure('homeCharacters', { characterIds: page.map((c) => c.characterId), gender, pageNo });
        }
      } catch {
        next = failPage;
      }
      if (myGeneration === generation.current) {
        inFlight.current = false;
        setState(next);
      }
    },
    [gender],
  );

  const checkScroll = useCallback(() => {
    const end = endRef.current;
    // Not laid out (the app still hidden behind the server's page): nothing to measure yet.
    if (!end || end.getClientRects().length === 0) return;
    const distance = end.getBoundingClientRect().top - window.innerHeight;
    if (shouldLoadMore(stateRef.current, distance, SCROLL_THRESHOLD_PX)) void loadPage(stateRef.current.pageNo + 1);
  }, [endRef, loadPage, stateRef]);

  // Start (or restart on a gender change), from the cache when returning from a chat.
  useEffect(() => {
    generation.current += 1;
    inFlight.current = false;
    const cache = store.get(homePageCacheDataAtom);
    if (cache && cache.gender === gender) {
      // A paged feed, not one request (useLoad): a gender change restarts it from the home
      // cache (an atom written when a card is opened) or from page 1, with the scroll restored
      // by a timer this effect owns; the cache is read and cleared here, once, so this cannot
      // move to render.
      // eslint-disable-next-line react-hooks/set-state-in-effect -- see above
      setState({ list: cache.list, pageNo: cache.pageNo, hasMore: cache.hasMore, loading: false, failed: false });
      let release: () => void = () => undefined;
      const timer = setTimeout(() => {
        release = restoreScroll(cache);
        store.set(homePageCacheDataAtom, null);
      }, CACHE_RESTORE_DELAY_MS);
      return () => {
        clearTimeout(timer);
        release();
      };
    }
    if (cache) store.set(homePageCacheDataAtom, null);
    const served = servedFeed(gender);
    if (served) {
      setState(served);
      stateRef.current = served;
      return undefined;
    }
    setState(EMPTY_FEED);
    stateRef.current = EMPTY_FEED;
    void loadPage(1);
    return undefined;
  }, [gender, loadPage, stateRef]);

  // Throttled scroll and resize checks, with a trailing call so the last position counts.
  useEffect(() => {
    let last = 0;
    let trailing: ReturnType<typeof setTimeout> | undefined;
    const onScroll = () => {
      const now = Date.now();
      const wait = SCROLL_THROTTLE_MS - (now - last);
      if (wait <= 0) {
        last = now;
        checkScroll();
      } else if (trailing === undefined) {
        trailing = setTimeout(() => {
          trailing = undefined;
          last = Date.now();
          checkScroll();
        }, wait);
      }
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    window.addEventListener('resize', onScroll);
    return () => {
      window.removeEventListener('scroll', onScroll);
      window.removeEventListener('resize', onScroll);
      if (trailing !== undefined) clearTimeout(trailing);
    };
  }, [checkScroll]);

  // A page that does not fill the screen cannot be scrolled: check again after each load.
  useEffect(() => {
    if (!state.loading && state.pageNo > 0) checkScroll();
  }, [state.loading, state.pageNo, checkScroll]);

  const retry = useCallback(() => {
    setState((s) => ({ ...s, hasMore: true, failed: false }));
    void loadPage(stateRef.current.pageNo + 1);
  }, [loadPage, stateRef]);

  return { ...state, retry };
}

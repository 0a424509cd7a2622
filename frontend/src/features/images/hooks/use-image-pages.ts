import { useCallback, useEffect, useRef, useState } from 'react';
import { useLatest } from '@/hooks/use-latest';
import type { ImagePage } from '@/lib/images-api';

export type PageLoad = 'loading' | 'ready' | 'failed';

/**
 * Newest first, one page at a time (`beforeId` = the oldest id held): the first page when
 * `key` changes, the next on `loadMore`; one request at a time, and an answer for an old
 * `key` is dropped.
 */
export function useImagePages<T extends { imageId: string }>(
  key: string,
  fetchPage: (beforeId?: string) => Promise<ImagePage<T> | null>,
  /** The paging cursor of an item (`beforeId`): its image id unless told otherwise. */
  cursorOf: (item: T) => string = (item) => item.imageId,
  enabled = true,
) {
  const [items, setItems] = useState<T[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [load, setLoad] = useState<PageLoad>('loading');
  const [loadingMore, setLoadingMore] = useState(false);
  const generation = useRef(0);
  const inFlight = useRef(false);
  const fetchRef = useLatest(fetchPage);
  const cursorRef = useLatest(cursorOf);
  const state = useLatest({ items, hasMore });

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    inFlight.current = true;
    setLoad('loading');
    try {
      const page = await fetchRef.current();
      if (mine !== generation.current) return;
      if (page) {
        setItems(page.images);
        setHasMore(page.hasMore);
        setLoad('ready');
      } else setLoad('failed');
    } catch {
      if (mine === generation.current) setLoad('failed');
    } finally {
      if (mine === generation.current) inFlight.current = false;
    }
  }, [fetchRef]);

  useEffect(() => {
    // A paged list, not one request (useLoad): the first page shares reload's generation
    // counter and in-flight guard with loadMore and the retry button, so it starts here.
    // eslint-disable-next-line react-hooks/set-state-in-effect -- see above
    if (enabled) void reload();
  }, [key, enabled, reload]);

  const loadMore = useCallback(async () => {
    const { items: held, hasMore: more } = state.current;
    const oldest = held[held.length - 1];
    if (inFlight.current || !more || !oldest) return;
    const mine = generation.current;
    inFlight.current = true;
    setLoadingMore(true);
    try {
      const page = await fetchRef.current(cursorRef.current(oldest));
      if (mine !== generation.current) return;
      if (page) {
        setItems((current) => {
          const seen = new Set(current.map((item) => item.imageId));
          return [...current, ...page.images.filter((item) => !seen.has(item.imageId))];
        });
        setHasMore(page.hasMore);
      } else setHasMore(false);
    } catch {
      // The connection notification has been shown; scrolling again retries.
    } finally {
      if (mine === generation.current) inFlight.current = false;
      setLoadingMore(false);
    }
  }, [cursorRef, fetchRef, state]);

  return { items, setItems, hasMore, load, loadingMore, loadMore, reload };
}

/** Calls `onVisible` whenever the returned element scrolls within 400 px of the viewport (spec section 9's threshold). */
export function useEndOfList(onVisible: () => void, itemCount: number) {
  const callback = useLatest(onVisible);
  const [element, setElement] = useState<HTMLElement | null>(null);
  useEffect(() => {
    if (!element) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) callback.current();
      },
      { rootMargin: '400px 0px' },
    );
    // A new observer reports at once: a page too short to fill the screen fetches the next.
    observer.observe(element);
    return () => observer.disconnect();
  }, [callback, element, itemCount]);
  return setElement;
}

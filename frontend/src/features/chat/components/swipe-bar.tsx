/**
 * The versions of the newest reply (docs/api.md "Versions of a reply"): "‹ 2/3 ›" under it,
 * and on touch screens a horizontal swipe on the reply itself. Left goes to the previous
 * version; right to the next one, or past the last writes a new one (as SillyTavern does).
 */
import { useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ChevronLeftIcon, ChevronRightIcon } from '@/components/icons';
import styles from '@/features/chat/components/chat.module.css';

export interface SwipeState {
  index: number;
  count: number;
  previous: number | null;
  next: number | null;
}

/** A horizontal move this long (CSS px), mostly sideways, is a swipe. */
export const SWIPE_MIN_PX = 56;

/** What a finished pointer move means: the version before, the one after, or nothing. */
export function swipeDirection(dx: number, dy: number): 'previous' | 'next' | null {
  if (Math.abs(dx) < SWIPE_MIN_PX || Math.abs(dx) < 2 * Math.abs(dy)) return null;
  // The finger moves left to bring in what lies to the right: the next version.
  return dx < 0 ? 'next' : 'previous';
}

export function SwipeBar({
  swipe,
  onChoose,
  onNewVersion,
}: {
  swipe: SwipeState;
  onChoose: (index: number) => void;
  onNewVersion: () => void;
}) {
  const { t } = useTranslation();
  if (swipe.count < 2) return null;
  const label = t('chat.versionOf', { index: swipe.index + 1, count: swipe.count });
  return (
    <div className={styles.swipeBar} data-testid="swipe-bar">
      <button
        type="button"
        className={styles.toolButton}
        disabled={swipe.previous === null}
        onClick={() => swipe.previous !== null && onChoose(swipe.previous)}
        aria-label={t('chat.previousVersion')}
        title={t('chat.previousVersion')}
        data-testid="swipe-previous"
      >
        <ChevronLeftIcon size={16} />
      </button>
      <span className={styles.swipeCount} aria-label={label} title={label} data-testid="swipe-count">
        {swipe.index + 1}/{swipe.count}
      </span>
      <button
        type="button"
        className={styles.toolButton}
        onClick={() => (swipe.next !== null ? onChoose(swipe.next) : onNewVersion())}
        aria-label={swipe.next !== null ? t('chat.nextVersion') : t('chat.newVersion')}
        title={swipe.next !== null ? t('chat.nextVersion') : t('chat.newVersion')}
        data-testid="swipe-next"
      >
        <ChevronRightIcon size={16} />
      </button>
    </div>
  );
}

/**
 * Pointer handlers that turn a sideways swipe of touch or pen on an element into a choice
 * (mouse drags select text instead). The element follows the finger a little while it moves.
 */
export function useSwipeGesture(swipe: SwipeState | null, onChoose: (index: number) => void, onNewVersion: () => void) {
  const start = useRef<{ id: number; x: number; y: number } | null>(null);
  const [offset, setOffset] = useState(0);
  if (!swipe) return { handlers: {}, offset: 0 };
  const end = (event: ReactPointerEvent, cancelled: boolean) => {
    const begun = start.current;
    start.current = null;
    setOffset(0);
    if (!begun || begun.id !== event.pointerId || cancelled) return;
    const direction = swipeDirection(event.clientX - begun.x, event.clientY - begun.y);
    if (direction === 'previous' && swipe.previous !== null) onChoose(swipe.previous);
    else if (direction === 'next') {
      if (swipe.next !== null) onChoose(swipe.next);
      else onNewVersion();
    }
  };
  return {
    offset,
    handlers: {
      onPointerDown: (event: ReactPointerEvent) => {
        if (event.pointerType === 'mouse') return;
        start.current = { id: event.pointerId, x: event.clientX, y: event.clientY };
      },
      onPointerMove: (event: ReactPointerEvent) => {
        const begun = start.current;
        if (!begun || begun.id !== event.pointerId) return;
        const dx = event.clientX - begun.x;
        if (Math.abs(dx) > Math.abs(event.clientY - begun.y)) setOffset(Math.max(-72, Math.min(72, dx / 2)));
      },
      onPointerUp: (event: ReactPointerEvent) => end(event, false),
      onPointerCancel: (event: ReactPointerEvent) => end(event, true),
    },
  };
}

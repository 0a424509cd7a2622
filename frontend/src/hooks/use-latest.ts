/**
 * A ref that holds the latest value a component rendered with, for callbacks that must
 * stay stable (a dialog's Escape handler, memoised bubbles, socket listeners) yet act on
 * what is current. It is written after the render commits (a layout effect, before any
 * passive effect or event sees it), never during render, as React's rules of refs ask.
 */
import { useLayoutEffect, useRef, type RefObject } from 'react';

export function useLatest<T>(value: T): RefObject<T> {
  const ref = useRef(value);
  useLayoutEffect(() => {
    ref.current = value;
  });
  return ref;
}

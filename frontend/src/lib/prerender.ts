/**
 * `window.prerenderReady` tells a prerendering crawler the page is complete: it becomes true
 * 300 ms after the last in-flight API request finishes (spec section 4).
 */
import { PRERENDER_READY_DELAY_MS } from '@/lib/site';

declare global {
  interface Window {
    prerenderReady?: boolean;
  }
}

let inFlight = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

export function markRequestStarted(): void {
  inFlight += 1;
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
}

export function markRequestFinished(): void {
  inFlight = Math.max(0, inFlight - 1);
  if (inFlight > 0) return;
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(() => {
    timer = undefined;
    window.prerenderReady = true;
  }, PRERENDER_READY_DELAY_MS);
}

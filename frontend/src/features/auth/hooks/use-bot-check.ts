import { useCallback, useEffect, useRef } from 'react';

/**
 * The bot check of the e-mail step (Cloudflare Turnstile). Clicking Email starts it; its
 * token is then sent with the address. A browser Turnstile does not support answers with
 * a marker token instead, which the server recognises (spec section 5); so does a
 * deployment without a site key, where the server runs no check either.
 */
export const BOT_CHECK_UNSUPPORTED_TOKEN = 'unsupported-browser';

const SCRIPT_URL = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

interface TurnstileOptions {
  sitekey: string;
  execution: 'execute' | 'render';
  appearance: 'always' | 'execute' | 'interaction-only';
  theme: 'dark' | 'light' | 'auto';
  callback: (token: string) => void;
  'error-callback': () => void;
  'expired-callback': () => void;
  'timeout-callback': () => void;
  'unsupported-callback': () => void;
}

interface Turnstile {
  render(container: HTMLElement, options: TurnstileOptions): string;
  execute(widgetId: string): void;
  reset(widgetId: string): void;
  remove(widgetId: string): void;
}

declare global {
  interface Window {
    turnstile?: Turnstile;
  }
}

let scriptPromise: Promise<Turnstile> | null = null;

function loadTurnstile(): Promise<Turnstile> {
  if (window.turnstile) return Promise.resolve(window.turnstile);
  scriptPromise ??= new Promise<Turnstile>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = SCRIPT_URL;
    script.async = true;
    script.onload = () => (window.turnstile ? resolve(window.turnstile) : reject(new Error('turnstile missing')));
    script.onerror = () => {
      scriptPromise = null;
      reject(new Error('turnstile failed to load'));
    };
    document.head.appendChild(script);
  });
  return scriptPromise;
}

export class BotCheckError extends Error {
  /** A timeout only resets the widget; it is not reported to the visitor as an error. */
  readonly timedOut: boolean;
  constructor(message: string, timedOut = false) {
    super(message);
    this.timedOut = timedOut;
  }
}

export function useBotCheck(siteKey: string | undefined) {
  const containerRef = useRef<HTMLDivElement>(null);
  const widgetId = useRef<string | null>(null);
  const pending = useRef<{ resolve: (token: string) => void; reject: (error: Error) => void } | null>(null);

  const remove = useCallback(() => {
    if (widgetId.current && window.turnstile) window.turnstile.remove(widgetId.current);
    widgetId.current = null;
  }, []);

  useEffect(() => remove, [remove]);

  /** Runs the check and resolves with the token to send; rejects when the check fails. */
  const run = useCallback(async (): Promise<string> => {
    if (!siteKey) return BOT_CHECK_UNSUPPORTED_TOKEN;
    let turnstile: Turnstile;
    try {
      turnstile = await loadTurnstile();
    } catch {
      return BOT_CHECK_UNSUPPORTED_TOKEN;
    }
    const container = containerRef.current;
    if (!container) throw new BotCheckError('bot check is not mounted');
    return new Promise<string>((resolve, reject) => {
      pending.current = { resolve, reject };
      const settle = (outcome: { token: string } | { error: Error }) => {
        const current = pending.current;
        pending.current = null;
        if (!current) return;
        if ('token' in outcome) current.resolve(outcome.token);
        else current.reject(outcome.error);
      };
      if (!widgetId.current) {
        widgetId.current = turnstile.render(container, {
          sitekey: siteKey,
          execution: 'execute',
          appearance: 'interaction-only',
          theme: 'dark',
          callback: (token) => settle({ token }),
          'error-callback': () => settle({ error: new BotCheckError('bot check failed') }),
          'expired-callback': () => widgetId.current && turnstile.reset(widgetId.current),
          // A timed-out challenge is reset so the visitor can simply try again.
          'timeout-callback': () => {
            if (widgetId.current) turnstile.reset(widgetId.current);
            settle({ error: new BotCheckError('bot check timed out', true) });
          },
          'unsupported-callback': () => settle({ token: BOT_CHECK_UNSUPPORTED_TOKEN }),
        });
      }
      turnstile.execute(widgetId.current);
    });
  }, [siteKey]);

  return { containerRef, run, remove };
}

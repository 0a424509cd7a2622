import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * The bot check of the e-mail step (spec sections 4 and 5). With a Turnstile site key the
 * Cloudflare widget is rendered explicitly and its token is sent with the address; a
 * browser Turnstile does not support answers with a marker token the server recognises; a
 * failure shows 'Error occurred, please try again.' and a timeout resets the widget.
 * Without Turnstile (the server's development mode) a local, clearly labelled check stands
 * in for it, yielding the token `development`.
 */
export const BOT_CHECK_UNSUPPORTED_TOKEN = 'unsupported-browser';
export const BOT_CHECK_DEVELOPMENT_TOKEN = 'development';

export const TURNSTILE_SCRIPT_URL = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

export interface TurnstileOptions {
  sitekey: string;
  theme: 'dark' | 'light' | 'auto';
  language: string;
  /** 'never': a failure stays failed and reaches error-callback, which offers a retry. */
  retry: 'auto' | 'never';
  'refresh-expired': 'auto' | 'manual' | 'never';
  callback: (token: string) => void;
  'error-callback': (code?: string) => boolean;
  'expired-callback': () => void;
  'timeout-callback': () => void;
  'unsupported-callback': () => void;
}

export interface Turnstile {
  render(container: HTMLElement, options: TurnstileOptions): string | undefined;
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
    script.src = TURNSTILE_SCRIPT_URL;
    script.async = true;
    script.onload = () => (window.turnstile ? resolve(window.turnstile) : reject(new Error('turnstile missing')));
    script.onerror = () => {
      // A later attempt may load it (a flaky network, a blocker switched off).
      scriptPromise = null;
      script.remove();
      reject(new Error('turnstile failed to load'));
    };
    document.head.appendChild(script);
  });
  return scriptPromise;
}

/**
 * idle: waiting for the visitor (development check not ticked) or for the config;
 * running: the check is working; verified: `token` may be sent; failed: show the error.
 */
export type BotCheckState =
  { status: 'idle' | 'running' | 'failed'; token: null } | { status: 'verified'; token: string };

export const BOT_CHECK_IDLE: BotCheckState = { status: 'idle', token: null };

/**
 * Renders the Turnstile widget into `containerRef` while mounted and enabled, and reports
 * its state. Unmounting removes the widget; remounting renders a fresh one.
 */
export function useTurnstile(siteKey: string | null, language: string) {
  const containerRef = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<BotCheckState>(siteKey ? { status: 'running', token: null } : BOT_CHECK_IDLE);
  const [attempt, setAttempt] = useState(0);

  // Each widget (a new key, language or attempt) starts running, from the render that asks for it.
  const widget = `${siteKey}|${language}|${attempt}`;
  const [stateFor, setStateFor] = useState(widget);
  if (stateFor !== widget) {
    setStateFor(widget);
    if (siteKey) setState({ status: 'running', token: null });
  }

  useEffect(() => {
    if (!siteKey) return;
    let cancelled = false;
    let widgetId: string | undefined;
    let turnstile: Turnstile | undefined;
    loadTurnstile().then(
      (loaded) => {
        const container = containerRef.current;
        if (cancelled || !container) return;
        turnstile = loaded;
        widgetId = loaded.render(container, {
          sitekey: siteKey,
          theme: 'dark',
          language,
          retry: 'never',
          'refresh-expired': 'auto',
          callback: (token) => !cancelled && setState({ status: 'verified', token }),
          'error-callback': () => {
            if (!cancelled) setState({ status: 'failed', token: null });
            // Handled: the step shows the message and a way to try again.
            return true;
          },
          // An expired token is refreshed by the widget itself; until then none may be sent.
          'expired-callback': () => !cancelled && setState({ status: 'running', token: null }),
          'timeout-callback': () => {
            if (cancelled || !widgetId) return;
            loaded.reset(widgetId);
            setState({ status: 'running', token: null });
          },
          'unsupported-callback': () =>
            !cancelled && setState({ status: 'verified', token: BOT_CHECK_UNSUPPORTED_TOKEN }),
        });
      },
      () => !cancelled && setState({ status: 'failed', token: null }),
    );
    return () => {
      cancelled = true;
      if (turnstile && widgetId) turnstile.remove(widgetId);
    };
  }, [siteKey, language, attempt]);

  /** A new widget: after a failure, or because a sent token cannot be used twice. */
  const retry = useCallback(() => setAttempt((n) => n + 1), []);

  return { containerRef, state, retry };
}

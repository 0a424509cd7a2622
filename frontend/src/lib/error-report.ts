/**
 * Error reports to POST /webError (spec sections 7 and 8). Reports are debounced by 200 ms
 * and identical ones inside that window are sent once; in development they only go to the
 * console.
 */
import { store, userInfoAtom } from '@/app/store';
import { apiPost } from '@/lib/api-client';
import type { ErrorReport } from '@/lib/api-types';
import { ERROR_REPORT_DEBOUNCE_MS } from '@/lib/site';

export interface ErrorDetails {
  errorType: string;
  message: string;
  stack?: string;
}

let pending: ErrorReport[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;

export function buildErrorReport(details: ErrorDetails): ErrorReport {
  return {
    errorType: details.errorType,
    message: details.message.slice(0, 4000),
    userAgent: navigator.userAgent,
    url: window.location.href,
    userId: store.get(userInfoAtom)?.userId ?? '',
    timestamp: Date.now(),
    stack: (details.stack ?? '').slice(0, 4000),
  };
}

function flush(): void {
  timer = undefined;
  const batch = pending;
  pending = [];
  for (const report of batch) {
    // A failing report is dropped: reporting it would loop.
    apiPost<boolean>('/webError', report, { quiet: true }).catch(() => undefined);
  }
}

export function reportError(details: ErrorDetails): void {
  if (import.meta.env.DEV) {
    // Unit tests exercise failures on purpose; only a developer's console wants them.
    if (import.meta.env.MODE === 'test') return;
    console.error(`[${details.errorType}] ${details.message}`, details.stack ?? '');
    return;
  }
  const report = buildErrorReport(details);
  const duplicate = pending.some((p) => p.errorType === report.errorType && p.message === report.message);
  if (!duplicate) pending.push(report);
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(flush, ERROR_REPORT_DEBOUNCE_MS);
}

export function errorDetails(errorType: string, error: unknown): ErrorDetails {
  if (error instanceof Error)
    return { errorType, message: `${error.name}: ${error.message}`, stack: error.stack ?? '' };
  return { errorType, message: String(error) };
}

/** Reports uncaught errors and unhandled promise rejections of the whole page. */
export function installGlobalErrorReporting(): void {
  window.addEventListener('error', (event) => {
    reportError(errorDetails('windowError', event.error ?? event.message));
  });
  window.addEventListener('unhandledrejection', (event) => {
    reportError(errorDetails('unhandledRejection', event.reason));
  });
}

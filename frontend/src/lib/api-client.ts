/**
 * The one API client (API.md sections 1 and 6). It owns the secret key, the encrypted
 * envelope, the request headers and the default reaction to response codes:
 * `tokenInvalid` opens the login prompt silently, `cannotPurchasePlan` warns with the
 * server's message, `needPay` offers the plans or tokens (needPayOfferAtom), every other failure code shows the generic error, an HTTP failure
 * shows 'Failed to connect to the server!', and a firewall's 403 HTML page replaces the
 * document once. Endpoints are small typed functions next to the feature that uses them.
 */
import { languageAtom, needPayOfferAtom, showLoginTipAtom, store } from '@/app/store';
import { ApiCode, type ApiEnvelope } from '@/lib/api-types';
import { captureNsfwFlag, nsfwEnabled } from '@/lib/nsfw-preference';
import { detectClient, detectSystem } from '@/lib/device';
import { decryptText, encryptText, generateSecretKey, isValidSecretKey } from '@/lib/envelope-crypto';
import { i18n } from '@/lib/i18n';
import { stripLanguage } from '@/lib/languages';
import { notify } from '@/lib/notifications';
import { markRequestFinished, markRequestStarted } from '@/lib/prerender';
import { APP_EMBEDDED_PATHS } from '@/lib/routes';
import { APP_VERSION } from '@/lib/site';
import { STORAGE_KEYS, storage } from '@/lib/storage';
import { captureTrackingSource, storedTrackingSource } from '@/lib/tracking-source';

export const API_PREFIX = '/lust/api';

/** Same host in production, /proxy under `vite dev`, or an explicit test host (spec section 7). */
export function apiBaseUrl(): string {
  const explicit = import.meta.env.VITE_API_ORIGIN as string | undefined;
  const origin = explicit ?? (import.meta.env.DEV && import.meta.env.MODE !== 'test' ? '/proxy' : '');
  return `${origin}${API_PREFIX}`;
}

export function getSecretKey(): string {
  const stored = storage.get(STORAGE_KEYS.secretKey);
  if (isValidSecretKey(stored)) return stored;
  const fresh = generateSecretKey();
  storage.set(STORAGE_KEYS.secretKey, fresh);
  return fresh;
}

export function getDistinctId(): string {
  const stored = storage.get(STORAGE_KEYS.distinctId);
  if (stored) return stored;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const fresh = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  storage.set(STORAGE_KEYS.distinctId, fresh);
  return fresh;
}

/** Forgets the analytics identity, so that the next visitor on this browser is a new one. */
export function resetDistinctId(): void {
  storage.remove(STORAGE_KEYS.distinctId);
}

/**
 * Reads what the landing URL tells the client: app voucher, NSFW flag, traffic source.
 * `?appVoucher=` is how the mobile app signs its embedded views in (API.md 1.2), so it is
 * taken only on the pages the app embeds (APP_EMBEDDED_PATHS) and only while this browser
 * holds no voucher: a link to the site can never switch a visitor's app to another
 * account (login CSRF, docs/security.md "Vouchers in links"). A session cookie always wins
 * over a voucher on the server, too.
 */
export function captureLandingParameters(search: string, pathname: string = window.location.pathname): void {
  const voucher = new URLSearchParams(search).get('appVoucher');
  if (voucher && APP_EMBEDDED_PATHS.includes(stripLanguage(pathname)) && !storage.get(STORAGE_KEYS.appVoucher)) {
    storage.set(STORAGE_KEYS.appVoucher, voucher);
  }
  captureNsfwFlag(search);
  captureTrackingSource(search);
}

/** Header values must be ISO-8859-1; anything else from a URL is percent-encoded. */
function headerSafe(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : encodeURIComponent(value);
}

export function buildHeaders(): Record<string, string> {
  const { source, medium } = storedTrackingSource();
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    secretKey: getSecretKey(),
    client: detectClient(),
    system: detectSystem(),
    platformType: 'web',
    timeZone: String(-new Date().getTimezoneOffset()),
    browserLanguage: navigator.language || 'en',
    appVersion: APP_VERSION,
    language: store.get(languageAtom),
    utm_source: source,
    utm_medium: medium,
    nsfw: nsfwEnabled() ? '1' : '0',
    distinctId: getDistinctId(),
  };
  const voucher = storage.get(STORAGE_KEYS.appVoucher);
  if (voucher) headers.voucher = voucher;
  for (const key of Object.keys(headers)) headers[key] = headerSafe(headers[key]!);
  return headers;
}

export class ApiHttpError extends Error {
  readonly status: number | null;
  /** True when the firewall's page replaced the document; nothing else is shown then. */
  readonly blocked: boolean;
  constructor(message: string, status: number | null, blocked = false) {
    super(message);
    this.name = 'ApiHttpError';
    this.status = status;
    this.blocked = blocked;
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST';
  /** The JSON payload of a POST, encrypted into `requestData`. */
  payload?: object;
  /** GET parameters; they travel unencrypted. */
  query?: Record<string, string | number | boolean | null | undefined>;
  /** Failure codes the caller reacts to itself ('all': every one); no default reaction for them. */
  handledCodes?: readonly number[] | 'all';
  /** No notification and no login prompt at all (telemetry, error reports). */
  quiet?: boolean;
  /** Runs after the default reaction to an HTTP failure. */
  onHttpError?: (error: ApiHttpError) => void;
}

let blockedPageShown = false;

function showBlockedPage(html: string): void {
  if (blockedPageShown) return;
  blockedPageShown = true;
  document.open();
  document.write(html);
  document.close();
}

/** For tests only: the firewall page may be shown again. */
export function resetBlockedPageForTests(): void {
  blockedPageShown = false;
}

function reactToFailureCode(envelope: ApiEnvelope<unknown>): void {
  switch (envelope.code) {
    case ApiCode.tokenInvalid:
      store.set(showLoginTipAtom, true);
      return;
    case ApiCode.cannotPurchasePlan:
      notify.warning(envelope.msg || i18n.t('CommonErrorMsg'));
      return;
    case ApiCode.needPay:
      store.set(needPayOfferAtom, true);
      return;
    default:
      notify.error(i18n.t('CommonErrorMsg'));
  }
}

function buildUrl(path: string, query: RequestOptions['query']): string {
  const url = `${apiBaseUrl()}${path}`;
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${url}?${text}` : url;
}

function isEnvelope(value: unknown): value is ApiEnvelope<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { code?: unknown }).code === 'number';
}

async function readEnvelope<T>(response: Response, secretKey: string): Promise<ApiEnvelope<T>> {
  const body = (await response.json()) as { responseData?: unknown };
  if (typeof body?.responseData !== 'string') throw new ApiHttpError('response has no responseData', response.status);
  const envelope: unknown = JSON.parse(await decryptText(secretKey, body.responseData));
  if (!isEnvelope(envelope)) throw new ApiHttpError('response is not an envelope', response.status);
  return { ...envelope, success: envelope.code === ApiCode.success } as ApiEnvelope<T>;
}

/**
 * Sends one API call and returns its envelope. Failure codes come back as envelopes (after
 * the default reaction, unless handled by the caller); HTTP and transport failures throw
 * ApiHttpError after the connection notification.
 */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<ApiEnvelope<T>> {
  const method = options.method ?? 'POST';
  const headers = buildHeaders();
  const secretKey = headers.secretKey!;
  markRequestStarted();
  try {
    let response: Response;
    let envelope: ApiEnvelope<T>;
    try {
      const body =
        method === 'GET'
          ? undefined
          : JSON.stringify({ requestData: await encryptText(secretKey, JSON.stringify(options.payload ?? {})) });
      response = await fetch(buildUrl(path, options.query), { method, headers, body, credentials: 'include' });
      if (response.status === 403 && (response.headers.get('content-type') ?? '').includes('text/html')) {
        showBlockedPage(await response.text());
        throw new ApiHttpError('blocked by the firewall', 403, true);
      }
      if (!response.ok) throw new ApiHttpError(`HTTP ${response.status}`, response.status);
      envelope = await readEnvelope<T>(response, secretKey);
    } catch (cause) {
      const error =
        cause instanceof ApiHttpError
          ? cause
          : new ApiHttpError(cause instanceof Error ? cause.message : String(cause), null);
      if (!options.quiet && !error.blocked) notify.error(i18n.t('errors.connection'));
      options.onHttpError?.(error);
      throw error;
    }
    const handled = options.handledCodes === 'all' || options.handledCodes?.includes(envelope.code);
    if (!envelope.success && !options.quiet && !handled) {
      reactToFailureCode(envelope);
    }
    return envelope;
  } finally {
    markRequestFinished();
  }
}

export function apiGet<T>(
  path: string,
  query?: RequestOptions['query'],
  options: Omit<RequestOptions, 'method' | 'query'> = {},
) {
  return apiRequest<T>(path, { ...options, method: 'GET', query });
}

export function apiPost<T>(
  path: string,
  payload: object = {},
  options: Omit<RequestOptions, 'method' | 'payload'> = {},
) {
  return apiRequest<T>(path, { ...options, method: 'POST', payload });
}

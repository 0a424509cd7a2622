/**
 * The console's API client: plain JSON under /lust/operator/api/, same origin, the operator
 * session cookie. Every POST carries `X-Amora-Operator: 1` (the server refuses a POST without
 * it, a guard against cross-site forms). Errors arrive as an HTTP status with
 * `{"error": "…"}`; they become an `OperatorApiError` with that status and message. A 401
 * (signed out) also calls the handler set by `onSignedOut` (the console goes to sign-in).
 */
export const OPERATOR_API = '/lust/operator/api/';

export class OperatorApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'OperatorApiError';
    this.status = status;
  }
}

/** What a status means when the server said nothing readable. */
const FALLBACK: Record<number, string> = {
  0: 'The server cannot be reached; check the connection and try again.',
  400: 'The server refused the input.',
  401: 'Signed out: sign in again.',
  403: 'Not allowed for your role.',
  404: 'Not found.',
  409: 'Conflict: the item changed; reload and try again.',
  429: 'Too many attempts; wait a minute and try again.',
  503: 'The server is busy; try again in a moment.',
};

let signedOutHandler: (() => void) | null = null;

/** Sets what happens on any 401 (the console navigates to its sign-in screen). */
export function onSignedOut(handler: (() => void) | null): void {
  signedOutHandler = handler;
}

export type Query = Record<string, string | number | undefined | null>;

function url(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const search = params.toString();
  return `${OPERATOR_API}${path}${search ? `?${search}` : ''}`;
}

async function readError(response: Response): Promise<string> {
  try {
    const body: unknown = await response.json();
    if (body && typeof body === 'object' && 'error' in body && typeof body.error === 'string' && body.error)
      return body.error;
  } catch {
    // not JSON: the fallback below
  }
  return FALLBACK[response.status] ?? `The server answered ${response.status}.`;
}

async function send<T>(method: 'GET' | 'POST', path: string, init: RequestInit, query?: Query): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url(path, query), { ...init, method, credentials: 'same-origin' });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new OperatorApiError(0, FALLBACK[0]!);
  }
  if (!response.ok) {
    const message = await readError(response);
    if (response.status === 401) signedOutHandler?.();
    throw new OperatorApiError(response.status, message);
  }
  try {
    return (await response.json()) as T;
  } catch {
    throw new OperatorApiError(response.status, 'The server answered something that is not JSON.');
  }
}

export function opGet<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
  return send<T>('GET', path, { signal: signal ?? null }, query);
}

export function opPost<T>(path: string, body: object = {}, signal?: AbortSignal): Promise<T> {
  return send<T>(
    'POST',
    path,
    {
      headers: { 'Content-Type': 'application/json', 'X-Amora-Operator': '1' },
      body: JSON.stringify(body),
      signal: signal ?? null,
    },
    undefined,
  );
}

/** A thrown value as one line for the operator. */
export function errorText(error: unknown): string {
  if (error instanceof OperatorApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Reasons for acting routes: 1 to 500 characters (the server's rule). */
export const MAX_REASON = 500;

export function reasonProblem(reason: string): string | null {
  const trimmed = reason.trim();
  if (!trimmed) return 'A reason is required.';
  if ([...trimmed].length > MAX_REASON) return `At most ${MAX_REASON} characters.`;
  return null;
}

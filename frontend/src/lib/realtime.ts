/**
 * The one WebSocket client (API.md section 5, docs/api.md "WebSocket"). It holds a socket
 * to `/lust/api/ws` exactly while a user is signed in (userInfoAtom), signed in by the
 * session cookie or, in app views, the stored voucher. A dropped socket is reopened after
 * an exponential backoff with full jitter (1 s doubling to 30 s), so that a restarted node
 * is not hit by every client at once; after a reconnect, and on every `tokenCount`, the
 * user info is refetched, which is what updates the header balance in every tab.
 * Screens send actions with `sendAction` and follow events with `onServerEvent`; a
 * `hello` after the first tells them to refetch what they show.
 */
import { realtimeConnectedAtom, store, userInfoAtom } from '@/app/store';
import { apiBaseUrl } from '@/lib/api-client';
import { parseServerEvent, type ClientAction, type ServerEvent } from '@/lib/realtime-events';
import { STORAGE_KEYS, storage } from '@/lib/storage';
import { refreshUserInfo } from '@/lib/user';

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 30_000;

/** Normal closure: this side is done with the socket (sign-out, another user, stop). */
const CLOSE_NORMAL = 1000;

/**
 * The wait before reconnect attempt `attempt` (0 for the first after a drop): uniformly
 * random below min(cap, base · 2^attempt) ("full jitter"), so clients that lost the same
 * node spread out instead of returning together.
 */
export function backoffDelay(
  attempt: number,
  random: () => number = Math.random,
  base = BACKOFF_BASE_MS,
  cap = BACKOFF_CAP_MS,
): number {
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt));
  return Math.min(ceiling - 1, Math.floor(random() * ceiling));
}

/** `ws://` or `wss://` like the page, on the API's host, with the app voucher when one is stored. */
export function realtimeUrl(pageUrl: string = window.location.href): string {
  const url = new URL(`${apiBaseUrl()}/ws`, pageUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const voucher = storage.get(STORAGE_KEYS.appVoucher);
  if (voucher) url.searchParams.set('voucher', voucher);
  return url.toString();
}

/** What of a WebSocket the client uses; tests pass a fake. */
export interface RealtimeSocket {
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/** Sends through the socket that said `hello`; set by startRealtime. */
let sendText: ((text: string) => boolean) | null = null;

/**
 * Sends one action to the server; false (nothing sent) while no socket is connected, so
 * the caller can say so instead of waiting for an answer that cannot come.
 */
export function sendAction(action: ClientAction): boolean {
  return sendText?.(JSON.stringify(action)) ?? false;
}

export interface RealtimeOptions {
  createSocket?: (url: string) => RealtimeSocket;
  refreshUser?: () => Promise<unknown>;
  random?: () => number;
}

type Listener = (event: ServerEvent) => void;
const listeners = new Set<Listener>();

/** Calls `listener` with every valid event from the server; returns the unsubscribe. */
export function onServerEvent(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Starts following the signed-in user with a socket; returns the function that closes it
 * and stops following. Call once, at start-up.
 */
export function startRealtime(options: RealtimeOptions = {}): () => void {
  const createSocket = options.createSocket ?? ((url: string) => new WebSocket(url));
  const refreshUser = options.refreshUser ?? refreshUserInfo;
  const random = options.random ?? Math.random;

  let socket: RealtimeSocket | null = null;
  let reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  let userId: string | null = null;
  /** Failed attempts since the last socket that said `hello`; sets the next wait. */
  let attempt = 0;
  /** Whether a socket of this user has said `hello` before: the next `hello` is a reconnect. */
  let helloBefore = false;

  function refresh() {
    void refreshUser();
  }

  /** The socket that said `hello`, the one actions go through. */
  let ready: RealtimeSocket | null = null;

  function setReady(next: RealtimeSocket | null) {
    ready = next;
    store.set(realtimeConnectedAtom, next !== null);
  }

  sendText = (text) => {
    if (!ready) return false;
    try {
      ready.send(text);
      return true;
    } catch {
      // Closing under our feet: the close handler reconnects.
      return false;
    }
  };

  function closeSocket() {
    if (reconnectTimer !== null) clearTimeout(reconnectTimer);
    reconnectTimer = null;
    setReady(null);
    if (!socket) return;
    const closing = socket;
    socket = null;
    // Detached first, so that this deliberate close schedules no reconnect.
    closing.onopen = closing.onmessage = closing.onclose = closing.onerror = null;
    closing.close(CLOSE_NORMAL);
  }

  function receive(data: unknown, from: RealtimeSocket): ServerEvent | null {
    const event = parseServerEvent(data);
    if (!event) return null;
    if (event.event === 'hello') {
      attempt = 0;
      // Ready before the listeners hear `hello`, so that a screen refetching on it can send.
      setReady(from);
      // State may have changed while no socket listened.
      if (helloBefore) refresh();
      helloBefore = true;
    } else if (event.event === 'tokenCount') {
      refresh();
    }
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (error) {
        // One failing screen must not cost the others their events; the error still
        // reaches the global error reporting.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    return event;
  }

  function connect() {
    reconnectTimer = null;
    let saidHello = false;
    const current = createSocket(realtimeUrl());
    socket = current;
    current.onmessage = (message) => {
      if (socket !== current) return;
      if (receive(message.data, current)?.event === 'hello') saidHello = true;
    };
    current.onclose = () => {
      if (socket !== current) return;
      socket = null;
      setReady(null);
      reconnectTimer = setTimeout(connect, backoffDelay(attempt, random));
      attempt += 1;
      // Refused before `hello` (HTTP 401 looks like any failed upgrade in a browser): the
      // session may be gone; refetching user info signs the visitor out if so, and that
      // cancels the reconnect just scheduled.
      if (!saidHello) refresh();
    };
  }

  function follow() {
    const next = store.get(userInfoAtom)?.userId ?? null;
    if (next === userId) return;
    closeSocket();
    userId = next;
    attempt = 0;
    helloBefore = false;
    if (userId) connect();
  }

  const unsubscribe = store.sub(userInfoAtom, follow);
  follow();
  return () => {
    unsubscribe();
    closeSocket();
    sendText = null;
    userId = null;
  };
}

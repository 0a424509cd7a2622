import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { realtimeConnectedAtom, store, userInfoAtom } from '@/app/store';
import type { UserInfo } from '@/lib/api-types';
import { encryptText } from '@/lib/envelope-crypto';
import {
  BACKOFF_CAP_MS,
  backoffDelay,
  onServerEvent,
  type RealtimeSocket,
  realtimeUrl,
  sendAction,
  startRealtime,
} from '@/lib/realtime';
import type { ServerEvent } from '@/lib/realtime-events';
import { STORAGE_KEYS, storage } from '@/lib/storage';

/** Stands in for the browser's WebSocket; the server's side is `say` and `drop`. */
class FakeSocket implements RealtimeSocket {
  static opened: FakeSocket[] = [];
  onopen: RealtimeSocket['onopen'] = null;
  onmessage: RealtimeSocket['onmessage'] = null;
  onclose: RealtimeSocket['onclose'] = null;
  onerror: RealtimeSocket['onerror'] = null;
  closedWith: number | null = null;
  sent: unknown[] = [];
  constructor(readonly url: string) {
    FakeSocket.opened.push(this);
  }
  send(text: string) {
    this.sent.push(JSON.parse(text));
  }
  close(code?: number) {
    this.closedWith = code ?? 1005;
  }
  say(data: unknown) {
    this.onmessage?.({
      data: typeof data === 'string' || data instanceof ArrayBuffer ? data : JSON.stringify(data),
    } as MessageEvent);
  }
  drop() {
    this.onclose?.({ code: 1006 } as CloseEvent);
  }
}

const createSocket = (url: string) => new FakeSocket(url);
const sockets = () => FakeSocket.opened;
const latest = () => FakeSocket.opened[FakeSocket.opened.length - 1]!;

function user(overrides: Partial<UserInfo> = {}): UserInfo {
  return {
    userId: 'u1x9QeZ',
    userNo: '20481736',
    userName: 'Sam',
    email: 'sam@example.com',
    discordEmail: null,
    appleEmail: null,
    userVipType: 1,
    coin: 0,
    userAvatar: '',
    utmSource: '',
    interestedGender: 0,
    nsfw: false,
    ...overrides,
  };
}

const hello = { event: 'hello', data: { userId: 'u1x9QeZ', coin: 0 } };

let stop: (() => void) | null = null;
function start(options: Parameters<typeof startRealtime>[0] = {}) {
  const refreshUser = vi.fn(async () => undefined);
  stop = startRealtime({ createSocket, refreshUser, random: () => 0.5, ...options });
  return refreshUser;
}

function halt() {
  stop?.();
  stop = null;
}

beforeEach(() => {
  vi.useFakeTimers();
  FakeSocket.opened = [];
  store.set(userInfoAtom, null);
});

afterEach(() => {
  halt();
  store.set(userInfoAtom, null);
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('backoffDelay', () => {
  it('waits below 1 s, then 2 s, 4 s … and never 30 s or more (full jitter)', () => {
    const ceilings = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000];
    ceilings.forEach((ceiling, attempt) => {
      expect(backoffDelay(attempt, () => 0)).toBe(0);
      expect(backoffDelay(attempt, () => 0.5)).toBe(ceiling / 2);
      expect(backoffDelay(attempt, () => 0.999_999_9)).toBe(ceiling - 1);
    });
    expect(backoffDelay(1_000, () => 0.999_999_9)).toBe(BACKOFF_CAP_MS - 1);
  });

  it('spreads random waits over the whole range', () => {
    const waits = Array.from({ length: 2_000 }, () => backoffDelay(3));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...waits)).toBeLessThan(8_000);
    // Full jitter, not a fixed wait: both halves of the range are used.
    expect(waits.some((w) => w < 4_000)).toBe(true);
    expect(waits.some((w) => w >= 4_000)).toBe(true);
  });
});

describe('realtimeUrl', () => {
  it('uses the page’s host with ws:// or wss://', () => {
    expect(realtimeUrl('http://127.0.0.1:8080/chat')).toBe('ws://127.0.0.1:8080/lust/api/ws');
    expect(realtimeUrl('https://amora.example/de/setting')).toBe('wss://amora.example/lust/api/ws');
  });

  it('signs app views in with the stored voucher', () => {
    storage.set(STORAGE_KEYS.appVoucher, 'v/1+2');
    expect(realtimeUrl('https://amora.example/')).toBe('wss://amora.example/lust/api/ws?voucher=v%2F1%2B2');
  });
});

describe('startRealtime', () => {
  it('opens no socket while nobody is signed in, and one once someone is', () => {
    start();
    vi.advanceTimersByTime(60_000);
    expect(sockets()).toHaveLength(0);

    store.set(userInfoAtom, user());
    expect(sockets()).toHaveLength(1);
    expect(latest().url).toBe(`ws://${window.location.host}/lust/api/ws`);
    // A refetch that changes the balance keeps the same socket.
    store.set(userInfoAtom, user({ coin: 500 }));
    expect(sockets()).toHaveLength(1);
  });

  it('closes the socket on sign-out and does not come back', () => {
    store.set(userInfoAtom, user());
    start();
    const socket = latest();
    socket.say(hello);
    store.set(userInfoAtom, null);
    expect(socket.closedWith).toBe(1000);
    vi.advanceTimersByTime(60_000);
    expect(sockets()).toHaveLength(1);
  });

  it('opens a new socket for another user and closes the old one', () => {
    store.set(userInfoAtom, user());
    start();
    store.set(userInfoAtom, user({ userId: 'uOther' }));
    expect(sockets()).toHaveLength(2);
    expect(sockets()[0]!.closedWith).toBe(1000);
    expect(latest().closedWith).toBeNull();
  });

  it('closes the socket when stopped, also while waiting to reconnect', () => {
    store.set(userInfoAtom, user());
    start();
    latest().say(hello);
    latest().drop();
    halt();
    vi.advanceTimersByTime(60_000);
    expect(sockets()).toHaveLength(1);

    start();
    halt();
    expect(latest().closedWith).toBe(1000);
  });

  it('refetches user info on tokenCount', () => {
    store.set(userInfoAtom, user());
    const refreshUser = start();
    latest().say(hello);
    expect(refreshUser).not.toHaveBeenCalled();
    latest().say({ event: 'tokenCount', data: { coin: 500 } });
    expect(refreshUser).toHaveBeenCalledTimes(1);
  });

  it('reconnects after the backoff and refetches user info after the reconnect', () => {
    store.set(userInfoAtom, user());
    const refreshUser = start();
    latest().say(hello);
    latest().drop();
    // random 0.5 of the first ceiling (1 s): 500 ms.
    vi.advanceTimersByTime(499);
    expect(sockets()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sockets()).toHaveLength(2);
    expect(refreshUser).not.toHaveBeenCalled();
    latest().say(hello);
    expect(refreshUser).toHaveBeenCalledTimes(1);
  });

  it('backs off further while attempts fail, and starts over after a hello', () => {
    store.set(userInfoAtom, user());
    const refreshUser = start();
    latest().say(hello);
    const waits: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const before = sockets().length;
      latest().drop();
      let waited = 0;
      while (sockets().length === before) {
        vi.advanceTimersByTime(100);
        waited += 100;
      }
      waits.push(waited);
    }
    expect(waits).toEqual([500, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000]);
    // Each attempt that ended before hello checked whether the session still exists.
    expect(refreshUser).toHaveBeenCalledTimes(6);

    latest().say(hello);
    latest().drop();
    vi.advanceTimersByTime(500);
    expect(latest().closedWith).toBeNull();
    expect(sockets()).toHaveLength(9);
  });

  it('stops trying when a refused attempt shows the session is gone', async () => {
    store.set(userInfoAtom, user());
    // What refreshUserInfo does when getUserInfo answers null.
    const refreshUser = vi.fn(async () => store.set(userInfoAtom, null));
    start({ refreshUser });
    latest().drop();
    await vi.runAllTimersAsync();
    expect(refreshUser).toHaveBeenCalledTimes(1);
    expect(sockets()).toHaveLength(1);
  });

  it('sends actions only through a socket that said hello, and says when it cannot', () => {
    const chatSend = { action: 'chatSend', data: { characterId: 'gf-001', content: 'Hi Mia!' } } as const;
    expect(sendAction(chatSend)).toBe(false);
    store.set(userInfoAtom, user());
    start();
    const first = latest();
    expect(sendAction(chatSend)).toBe(false);
    expect(store.get(realtimeConnectedAtom)).toBe(false);
    first.say(hello);
    expect(store.get(realtimeConnectedAtom)).toBe(true);
    expect(sendAction(chatSend)).toBe(true);
    expect(first.sent).toEqual([chatSend]);

    first.drop();
    expect(store.get(realtimeConnectedAtom)).toBe(false);
    expect(sendAction({ action: 'chatStop', data: { characterId: 'gf-001' } })).toBe(false);
    vi.advanceTimersByTime(BACKOFF_CAP_MS);
    const second = latest();
    // A screen that refetches on the reconnect's hello can already send.
    const unsubscribe = onServerEvent((event) => {
      if (event.event === 'hello') sendAction({ action: 'saveMemories', data: { characterId: 'gf-001' } });
    });
    second.say(hello);
    unsubscribe();
    expect(second.sent).toEqual([{ action: 'saveMemories', data: { characterId: 'gf-001' } }]);
    expect(first.sent).toHaveLength(1);

    halt();
    expect(store.get(realtimeConnectedAtom)).toBe(false);
    expect(sendAction(chatSend)).toBe(false);
  });

  it('ignores malformed frames and keeps the socket open', () => {
    store.set(userInfoAtom, user());
    const refreshUser = start();
    const seen: ServerEvent[] = [];
    const unsubscribe = onServerEvent((event) => seen.push(event));
    const socket = latest();
    socket.say(hello);
    for (const frame of [
      'not json',
      new ArrayBuffer(8),
      '{"event":"tokenCount"}',
      '{"event":"tokenCount","data":{"coin":"500"}}',
      '{"event":"tokenCount","data":[500]}',
      '{"event":"someday","data":{}}',
      'null',
    ]) {
      expect(() => socket.say(frame)).not.toThrow();
    }
    expect(refreshUser).not.toHaveBeenCalled();
    expect(socket.closedWith).toBeNull();
    expect(seen.map((e) => e.event)).toEqual(['hello']);
    // Still listening after all that.
    socket.say({ event: 'tokenCount', data: { coin: 500 } });
    expect(refreshUser).toHaveBeenCalledTimes(1);
    expect(seen.map((e) => e.event)).toEqual(['hello', 'tokenCount']);
    unsubscribe();
  });

  it('gives every listener the event even when one of them throws', () => {
    store.set(userInfoAtom, user());
    start();
    const thrown: unknown[] = [];
    const queue = vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((task) => {
      try {
        task();
      } catch (error) {
        thrown.push(error);
      }
    });
    const seen: string[] = [];
    const unsubscribeBroken = onServerEvent(() => {
      throw new Error('broken screen');
    });
    const unsubscribe = onServerEvent((event) => seen.push(event.event));
    latest().say(hello);
    expect(seen).toEqual(['hello']);
    expect(thrown).toEqual([new Error('broken screen')]);
    unsubscribeBroken();
    unsubscribe();
    queue.mockRestore();
  });

  it('ignores a socket it has already closed', () => {
    store.set(userInfoAtom, user());
    const refreshUser = start();
    const first = latest();
    const { onmessage, onclose } = first;
    store.set(userInfoAtom, user({ userId: 'uOther' }));
    // Events a closed socket might still deliver.
    onmessage?.({ data: JSON.stringify({ event: 'tokenCount', data: { coin: 1 } }) } as MessageEvent);
    onclose?.({ code: 1006 } as CloseEvent);
    vi.advanceTimersByTime(60_000);
    expect(refreshUser).not.toHaveBeenCalled();
    expect(sockets()).toHaveLength(2);
  });

  it('updates the balance from the server after tokenCount (real refetch)', async () => {
    vi.useRealTimers();
    const fetchMock = vi.fn(async (_url: string, init: RequestInit) => {
      const key = (init.headers as Record<string, string>).secretKey!;
      const plain = JSON.stringify({ code: 200, msg: 'success', success: true, data: user({ coin: 500 }) });
      return new Response(JSON.stringify({ responseData: await encryptText(key, plain) }), { status: 200 });
    });
    vi.stubGlobal('fetch', fetchMock);
    store.set(userInfoAtom, user());
    stop = startRealtime({ createSocket });
    latest().say(hello);
    latest().say({ event: 'tokenCount', data: { coin: 500 } });
    await vi.waitFor(() => expect(store.get(userInfoAtom)?.coin).toBe(500));
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/lust/api/user/v1/getUserInfo');
    expect(sockets()).toHaveLength(1);
  });
});

import { act, renderHook, waitFor } from '@testing-library/react';
import { Provider } from 'jotai';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memorySavesAtom, notificationsAtom, store, userInfoAtom } from '@/app/store';
import { useMemories } from '@/features/chat/hooks/use-memories';
import type { Memory, UserInfo } from '@/lib/api-types';
import { decryptText, encryptText } from '@/lib/envelope-crypto';
import { startRealtime } from '@/lib/realtime';
import { FakeSocket } from '@/test/fake-socket';

const CHARACTER = 'gf-001';
const OTHER = 'gf-002';
const memory = (id: string, content: string, origin: Memory['origin'] = 'extracted'): Memory => ({
  memoryId: id,
  content,
  origin,
  createdAt: 1,
  pinned: false,
});

let socket: FakeSocket;
let stop: () => void;
let listed: Memory[];
let otherListed: Memory[];
let listCalls: number;

beforeEach(() => {
  listed = [memory('2', 'Lives by the sea')];
  otherListed = [memory('7', 'Plays the cello')];
  listCalls = 0;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const key = (init.headers as Record<string, string>).secretKey!;
      const payload = JSON.parse(await decryptText(key, JSON.parse(init.body as string).requestData));
      expect(url).toContain('/user/v1/memory/getMemoryList');
      expect([CHARACTER, OTHER]).toContain(payload.characterId);
      if (payload.characterId === CHARACTER) listCalls += 1;
      const data = payload.characterId === CHARACTER ? listed : otherListed;
      const plain = JSON.stringify({ code: 200, msg: '', success: true, data });
      return new Response(JSON.stringify({ responseData: await encryptText(key, plain) }), { status: 200 });
    }),
  );
  store.set(notificationsAtom, []);
  store.set(userInfoAtom, { userId: 'u1' } as UserInfo);
  stop = startRealtime({
    createSocket: () => (socket = new FakeSocket()),
    refreshUser: async () => undefined,
  });
  socket.say('hello', { userId: 'u1', coin: 0 });
});

afterEach(() => {
  stop();
  store.set(userInfoAtom, null);
});

const wrapper = ({ children }: { children: ReactNode }) => <Provider store={store}>{children}</Provider>;

async function mounted(characterId = CHARACTER) {
  const hook = renderHook(() => useMemories(characterId), { wrapper });
  await waitFor(() => expect(hook.result.current.status).toBe('ready'));
  return hook;
}

describe('useMemories', () => {
  it('saves on request: saving from the action to memorySaved, which replaces the list and says what was added', async () => {
    const { result } = await mounted();
    expect(result.current.memories).toEqual(listed);
    act(() => {
      expect(result.current.save()).toBe(true);
    });
    expect(socket.sent).toEqual([{ action: 'saveMemories', data: { characterId: CHARACTER } }]);
    expect(result.current.saving).toBe(true);
    socket.say('memorySaving', { characterId: CHARACTER });
    expect(result.current.saveType).toBe('save');

    const saved = [memory('3', 'Loves hiking'), ...listed];
    socket.say('memorySaved', { characterId: CHARACTER, added: 1, memories: saved });
    expect(result.current.memories).toEqual(saved);
    expect(result.current.saving).toBe(false);
    expect(store.get(notificationsAtom).map((n) => [n.kind, n.message])).toEqual([
      ['success', 'New memories saved: 1'],
    ]);
    expect(store.get(memorySavesAtom).size).toBe(0);
  });

  it('marks the periodic extraction as automatic and tells nothing when it ends', async () => {
    const { result } = await mounted();
    socket.say('memorySaving', { characterId: CHARACTER });
    expect(result.current.saving).toBe(true);
    expect(result.current.saveType).toBe('auto');
    socket.say('memorySaved', { characterId: CHARACTER, added: 0, memories: listed });
    expect(result.current.saving).toBe(false);
    expect(result.current.saveType).toBe('save');
    expect(store.get(notificationsAtom)).toEqual([]);
  });

  it('keeps two characters’ saves apart: one saving does not show on the other', async () => {
    const first = await mounted(CHARACTER);
    const second = await mounted(OTHER);
    act(() => {
      expect(first.result.current.save()).toBe(true);
    });
    expect(first.result.current.saving).toBe(true);
    expect(second.result.current.saving).toBe(false);

    // The other character's periodic extraction starts and is refused nothing of the first's.
    socket.say('memorySaving', { characterId: OTHER });
    expect(second.result.current).toMatchObject({ saving: true, saveType: 'auto' });
    expect(first.result.current).toMatchObject({ saving: true, saveType: 'save' });
    socket.say('chatError', { characterId: OTHER, replyId: null, code: 10003, msg: 'busy' });
    expect(first.result.current.saving).toBe(true);

    // The first save ends; the other goes on, and its list is its own.
    const saved = [memory('3', 'Loves hiking'), ...listed];
    socket.say('memorySaved', { characterId: CHARACTER, added: 1, memories: saved });
    expect(first.result.current.saving).toBe(false);
    expect(first.result.current.memories).toEqual(saved);
    expect(second.result.current.saving).toBe(true);
    expect(second.result.current.memories).toEqual(otherListed);
    socket.say('memorySaved', { characterId: OTHER, added: 1, memories: otherListed });
    expect(second.result.current.saving).toBe(false);
    // Only the save the user asked for is announced.
    expect(store.get(notificationsAtom).map((n) => n.message)).toEqual(['New memories saved: 1']);
    expect(store.get(memorySavesAtom).size).toBe(0);
  });

  it('still shows a save as running after its chat was closed and opened again, and tells when it ends', async () => {
    const first = await mounted(CHARACTER);
    act(() => {
      first.result.current.save();
    });
    socket.say('memorySaving', { characterId: CHARACTER });
    first.unmount();
    const other = await mounted(OTHER);
    expect(other.result.current.saving).toBe(false);
    other.unmount();

    const again = await mounted(CHARACTER);
    expect(again.result.current).toMatchObject({ saving: true, saveType: 'save' });
    socket.say('memorySaved', { characterId: CHARACTER, added: 0, memories: listed });
    expect(again.result.current.saving).toBe(false);
    expect(store.get(notificationsAtom).map((n) => [n.kind, n.message])).toEqual([
      ['info', 'Nothing new to remember from this chat yet.'],
    ]);
  });

  it('ignores other characters’ memories', async () => {
    const { result } = await mounted();
    socket.say('memorySaving', { characterId: 'gf-002' });
    socket.say('memorySaved', { characterId: 'gf-002', added: 1, memories: [memory('9', 'Elsewhere')] });
    expect(result.current.saving).toBe(false);
    expect(result.current.memories).toEqual(listed);
  });

  it('ends a save refused before its extraction started (chatError, replyId null, no memorySaving)', async () => {
    const { result } = await mounted();
    act(() => {
      result.current.save();
    });
    expect(result.current.saving).toBe(true);
    // Another character's refusal is not this save's.
    socket.say('chatError', { characterId: 'gf-002', replyId: null, code: 10003, msg: 'busy' });
    expect(result.current.saving).toBe(true);
    socket.say('chatError', { characterId: CHARACTER, replyId: null, code: 10003, msg: 'busy' });
    expect(result.current.saving).toBe(false);
    expect(store.get(notificationsAtom)).toEqual([]);
  });

  it('keeps saving through a refused send once the extraction has started, until memorySaved', async () => {
    const { result } = await mounted();
    act(() => {
      result.current.save();
    });
    socket.say('memorySaving', { characterId: CHARACTER });
    socket.say('chatError', { characterId: CHARACTER, replyId: null, code: 40004, msg: 'no free messages left today' });
    expect(result.current.saving).toBe(true);
    expect(result.current.saveType).toBe('save');
    socket.say('memorySaved', { characterId: CHARACTER, added: 0, memories: listed });
    expect(result.current.saving).toBe(false);
    expect(store.get(notificationsAtom).map((n) => n.kind)).toEqual(['info']);
  });

  it('keeps the automatic extraction going through a refused send', async () => {
    const { result } = await mounted();
    socket.say('memorySaving', { characterId: CHARACTER });
    socket.say('chatError', { characterId: CHARACTER, replyId: null, code: 40004, msg: 'no free messages left today' });
    expect(result.current.saving).toBe(true);
    expect(result.current.saveType).toBe('auto');
    socket.say('memorySaved', { characterId: CHARACTER, added: 1, memories: listed });
    expect(result.current.saving).toBe(false);
  });

  it('ends a save whose memorySaved was lost while the socket was away, and refetches the list', async () => {
    const { result } = await mounted();
    act(() => {
      result.current.save();
    });
    socket.say('memorySaving', { characterId: CHARACTER });
    listed = [memory('4', 'Has a dog named Biscuit'), ...listed];
    const callsBefore = listCalls;
    socket.say('hello', { userId: 'u1', coin: 0 });
    expect(result.current.saving).toBe(false);
    await waitFor(() => expect(result.current.memories).toEqual(listed));
    expect(listCalls).toBe(callsBefore + 1);
  });
});

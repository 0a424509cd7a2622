import { act, renderHook, waitFor } from '@testing-library/react';
import { Provider } from 'jotai';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { store, userInfoAtom } from '@/app/store';
import { useChatList } from '@/features/chat/hooks/use-chat-list';
import type { ChatSummary, UserInfo } from '@/lib/api-types';
import { decryptText, encryptText } from '@/lib/envelope-crypto';
import { startRealtime } from '@/lib/realtime';
import { FakeSocket } from '@/test/fake-socket';

const summary = (characterId: string, messageId: string): ChatSummary => ({
  characterId,
  characterName: characterId,
  characterPhoto: `/media/${characterId}`,
  lastMessage: { messageId, speaker: 'user', content: 'hi', createdAt: 1 },
});

/** A chat list answer the test releases when it chooses, with the list as the server had it when asked. */
interface Pending {
  listed: ChatSummary[];
  release: () => void;
}

let socket: FakeSocket;
let stop: () => void;
/** The server's conversations now. */
let server: ChatSummary[];
let pending: Pending[];

beforeEach(() => {
  server = [summary('a', '1'), summary('b', '2')];
  pending = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      expect(url).toContain('/user/v1/chat/getChatList');
      const key = (init.headers as Record<string, string>).secretKey!;
      await decryptText(key, JSON.parse(init.body as string).requestData);
      const listed = [...server];
      await new Promise<void>((release) => pending.push({ listed, release }));
      const plain = JSON.stringify({ code: 200, msg: '', success: true, data: listed });
      return new Response(JSON.stringify({ responseData: await encryptText(key, plain) }), { status: 200 });
    }),
  );
  store.set(userInfoAtom, { userId: 'u1' } as UserInfo);
  stop = startRealtime({
    createSocket: () => (socket = new FakeSocket()),
    refreshUser: async () => undefined,
  });
});

afterEach(() => {
  stop();
  store.set(userInfoAtom, null);
  vi.unstubAllGlobals();
});

const wrapper = ({ children }: { children: ReactNode }) => <Provider store={store}>{children}</Provider>;

/** Lets the oldest pending answer through. */
async function answerNext() {
  await waitFor(() => expect(pending.length).toBeGreaterThan(0));
  const next = pending.shift()!;
  await act(async () => next.release());
}

describe('useChatList', () => {
  it('never lets an answer asked before a deletion put the deleted chat back', async () => {
    const { result } = renderHook(() => useChatList(), { wrapper });
    await answerNext();
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(result.current.list.map((s) => s.characterId)).toEqual(['a', 'b']);

    // The newest message of "a" is deleted: the list asks again what is last...
    socket.say('chatMessageDeleted', { characterId: 'a', messageIds: ['1'] });
    await waitFor(() => expect(pending.length).toBe(1));
    // ...and before that answer comes, "a" is deleted in another tab.
    server = [summary('b', '2')];
    socket.say('chatDeleted', { characterId: 'a' });
    expect(result.current.list.map((s) => s.characterId)).toEqual(['b']);

    // The answer asked before the deletion still lists "a": it is asked again, not shown.
    await answerNext();
    expect(result.current.list.map((s) => s.characterId)).toEqual(['b']);
    await answerNext();
    await waitFor(() => expect(pending.length).toBe(0));
    expect(result.current.list.map((s) => s.characterId)).toEqual(['b']);
  });

  it('shows the newest answer when two are out of order', async () => {
    const { result } = renderHook(() => useChatList(), { wrapper });
    await answerNext();
    await waitFor(() => expect(result.current.status).toBe('ready'));

    socket.say('chatMessageDeleted', { characterId: 'a', messageIds: ['1'] });
    await waitFor(() => expect(pending.length).toBe(1));
    server = [summary('c', '3'), ...server];
    socket.say('chatMessageDeleted', { characterId: 'b', messageIds: ['2'] });
    await waitFor(() => expect(pending.length).toBe(2));

    // The newer answer first, then the older one: the older one is not shown.
    const [older, newer] = pending.splice(0, 2);
    await act(async () => newer!.release());
    await waitFor(() => expect(result.current.list.map((s) => s.characterId)).toEqual(['c', 'a', 'b']));
    await act(async () => older!.release());
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(result.current.list.map((s) => s.characterId)).toEqual(['c', 'a', 'b']);
  });
});

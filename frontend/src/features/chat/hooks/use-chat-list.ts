import { useCallback, useEffect, useRef, useState } from 'react';
import { deleteChat, getChatList } from '@/features/chat/api/chat-api';
import { useLatest } from '@/hooks/use-latest';
import type { ChatMessage, ChatSummary } from '@/lib/api-types';
import { onServerEvent } from '@/lib/realtime';

/** The conversation list with `message` as the newest of `characterId`'s, moved to the top; null when it is not listed. */
export function withLastMessage(
  list: readonly ChatSummary[],
  characterId: string,
  message: ChatMessage,
): ChatSummary[] | null {
  const found = list.find((summary) => summary.characterId === characterId);
  if (!found) return null;
  return [{ ...found, lastMessage: message }, ...list.filter((summary) => summary !== found)];
}

/**
 * The user's conversations, most recently active first. Stored messages (the user's, a
 * reply, a new conversation's greeting) move their conversation to the top; one not
 * listed yet, or a reconnect, refetches the list.
 */
export function useChatList() {
  const [list, setList] = useState<ChatSummary[]>([]);
  const [status, setStatus] = useState<'loading' | 'ready' | 'failed'>('loading');
  const listRef = useLatest(list);
  // Changes the list heard (a deletion) and fetches asked, counted: a fetch answered after a
  // deletion it may predate is asked again rather than shown (it would put the deleted chat
  // back), and an older fetch never overwrites a newer one.
  const heard = useRef(0);
  const asked = useRef(0);

  const reload = useCallback(async () => {
    for (;;) {
      const fetchNumber = ++asked.current;
      const heardBefore = heard.current;
      let envelope;
      try {
        envelope = await getChatList();
      } catch {
        if (fetchNumber === asked.current) setStatus((s) => (s === 'ready' ? s : 'failed'));
        return;
      }
      if (fetchNumber !== asked.current) return;
      // A deletion heard while this was asked: ask again.
      if (heard.current !== heardBefore) continue;
      if (envelope.success && Array.isArray(envelope.data)) {
        setList(envelope.data);
        setStatus('ready');
      } else setStatus((s) => (s === 'ready' ? s : 'failed'));
      return;
    }
  }, []);

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the list follows the socket (refetched on `hello` and on events it cannot apply), so its first fetch starts with the subscription; reload sets state only after its await.
    void reload();
    return onServerEvent((event) => {
      if (event.event === 'hello') {
        void reload();
        return;
      }
      if (event.event === 'chatDeleted') {
        // Deleted in any tab: it leaves every tab's list.
        const gone = event.data.characterId;
        heard.current += 1;
        setList((current) => current.filter((summary) => summary.characterId !== gone));
        return;
      }
      if (event.event === 'chatMessageDeleted') {
        // The listed last message went: the list says what is last now.
        const listedLast = listRef.current.find((summary) => summary.characterId === event.data.characterId)
          ?.lastMessage.messageId;
        if (listedLast && event.data.messageIds.includes(listedLast)) void reload();
        return;
      }
      const stored = event.event === 'chatMessage' || event.event === 'chatDone' ? event.data.message : null;
      if (!stored || !('characterId' in event.data) || typeof event.data.characterId !== 'string') return;
      const next = withLastMessage(listRef.current, event.data.characterId, stored);
      if (next) setList(next);
      else void reload();
    });
  }, [listRef, reload]);

  const remove = useCallback(async (characterId: string) => {
    const envelope = await deleteChat(characterId);
    if (envelope.success) {
      heard.current += 1;
      setList((current) => current.filter((summary) => summary.characterId !== characterId));
    }
    return envelope.success;
  }, []);

  return { list, status, reload, remove };
}

import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import {
  chooseGreeting as chooseGreetingCall,
  deleteMessage,
  editMessage,
  getMessageList,
} from '@/features/chat/api/chat-api';
import { EMPTY_THREAD, threadReducer } from '@/features/chat/stores/chat-thread';
import { useLatest } from '@/hooks/use-latest';
import { ApiCode } from '@/lib/api-types';
import { onServerEvent, sendAction } from '@/lib/realtime';

export type ThreadLoad = 'loading' | 'ready' | 'failed' | 'notFound';

/** What an edit answered: done, or the code and message of a refusal. */
export type EditResult = { ok: true } | { ok: false; code: number; msg: string };

/**
 * One conversation: its history (the newest page first, older pages on demand), the chat
 * events of the socket applied as they come, and the actions of the screen. A `hello`
 * (the socket came back) refetches the newest page, so a reply that ended while the
 * socket was away comes from history.
 */
export function useChatThread(characterId: string) {
  const [state, dispatch] = useReducer(threadReducer, EMPTY_THREAD);
  const [load, setLoad] = useState<ThreadLoad>('loading');
  const [loadingOlder, setLoadingOlder] = useState(false);
  const stateRef = useLatest(state);
  const olderInFlight = useRef(false);

  const loadNewest = useCallback(async () => {
    try {
      const envelope = await getMessageList(characterId);
      if (envelope.success && envelope.data) {
        dispatch({ type: 'newestPage', page: envelope.data });
        setLoad('ready');
      } else if (!stateRef.current.loaded) {
        setLoad(envelope.code === ApiCode.notFound ? 'notFound' : 'failed');
      }
    } catch {
      if (!stateRef.current.loaded) setLoad('failed');
    }
  }, [characterId, stateRef]);

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the thread follows the socket (its events feed the reducer, `hello` refetches the newest page), so the first fetch starts with the subscription; loadNewest sets state only after its await.
    void loadNewest();
    return onServerEvent((event) => {
      if (event.event === 'hello') {
        void loadNewest();
        return;
      }
      if (!('characterId' in event.data) || event.data.characterId !== characterId) return;
      switch (event.event) {
        case 'chatMessage':
        case 'chatDelta':
        case 'chatDone':
        case 'chatMessageDeleted':
        case 'chatDeleted':
          dispatch(event);
          break;
        case 'chatError':
          dispatch(event);
          // A failed reply gives its credit back: the newest page says how many are left.
          void loadNewest();
          break;
        default:
          break;
      }
    });
  }, [characterId, loadNewest]);

  const loadOlder = useCallback(async () => {
    const { hasMore, messages } = stateRef.current;
    const oldest = messages[0];
    if (olderInFlight.current || !hasMore || !oldest) return;
    olderInFlight.current = true;
    setLoadingOlder(true);
    try {
      const envelope = await getMessageList(characterId, oldest.messageId);
      if (envelope.success && envelope.data) dispatch({ type: 'olderPage', page: envelope.data });
    } catch {
      // The connection notification has been shown; scrolling up again retries.
    } finally {
      olderInFlight.current = false;
      setLoadingOlder(false);
    }
  }, [characterId, stateRef]);

  /** False when no socket is connected: nothing was sent. */
  const send = useCallback(
    (content: string) => {
      if (!sendAction({ action: 'chatSend', data: { characterId, content } })) return false;
      dispatch({ type: 'replyRequested' });
      return true;
    },
    [characterId],
  );

  const regenerate = useCallback(() => {
    if (!sendAction({ action: 'chatRegenerate', data: { characterId } })) return false;
    dispatch({ type: 'replyRequested' });
    return true;
  }, [characterId]);

  /** Writes the rest of the newest reply; false when no socket is connected. */
  const continueReply = useCallback(() => {
    if (!sendAction({ action: 'chatContinue', data: { characterId } })) return false;
    dispatch({ type: 'replyRequested' });
    return true;
  }, [characterId]);

  /** Shows version `index` of the newest reply; the server answers with `chatMessage`. */
  const swipe = useCallback(
    (messageId: string, index: number) => sendAction({ action: 'chatSwipe', data: { characterId, messageId, index } }),
    [characterId],
  );

  const stop = useCallback(() => sendAction({ action: 'chatStop', data: { characterId } }), [characterId]);

  const edit = useCallback(
    async (messageId: string, content: string): Promise<EditResult> => {
      const envelope = await editMessage(characterId, messageId, content);
      if (envelope.success && envelope.data) {
        dispatch({ type: 'messageEdited', message: envelope.data });
        return { ok: true };
      }
      return { ok: false, code: envelope.code, msg: envelope.msg };
    },
    [characterId],
  );

  const remove = useCallback(
    async (messageId: string) => {
      const envelope = await deleteMessage(characterId, messageId);
      if (envelope.success) dispatch({ type: 'messageRemoved', messageId });
      return envelope.success;
    },
    [characterId],
  );

  /** Puts greeting `index` (0 the main one) in place of the first message; false when refused. */
  const chooseGreeting = useCallback(
    async (index: number) => {
      const envelope = await chooseGreetingCall(characterId, index);
      if (envelope.success && envelope.data) {
        dispatch({ type: 'greetingReplaced', message: envelope.data });
        return true;
      }
      // The conversation went on elsewhere: history says how it stands.
      void loadNewest();
      return false;
    },
    [characterId, loadNewest],
  );

  const dismissFailure = useCallback(() => dispatch({ type: 'failureDismissed' }), []);

  const retry = useCallback(() => {
    setLoad('loading');
    void loadNewest();
  }, [loadNewest]);

  return {
    state,
    load,
    loadingOlder,
    retry,
    refresh: loadNewest,
    loadOlder,
    send,
    regenerate,
    continueReply,
    swipe,
    stop,
    edit,
    remove,
    chooseGreeting,
    dismissFailure,
  };
}

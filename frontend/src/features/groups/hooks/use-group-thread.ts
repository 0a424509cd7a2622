import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { deleteGroupMessage, editGroupMessage, getGroupMessageList } from '@/features/groups/api/groups-api';
import { EMPTY_GROUP_THREAD, groupThreadReducer } from '@/features/groups/stores/group-thread';
import { useLatest } from '@/hooks/use-latest';
import { ApiCode } from '@/lib/api-types';
import { onServerEvent, sendAction } from '@/lib/realtime';

export type GroupThreadLoad = 'loading' | 'ready' | 'failed' | 'notFound';

/** How an edit went: saved, or refused with the server's code and message. */
export type GroupEditResult = { ok: true } | { ok: false; code: number; msg: string };

/**
 * One group chat: its history (the newest page first, older pages on demand), the group
 * events of the socket applied as they come, and the round actions. A `hello` (the socket
 * came back) refetches the newest page, so replies stored while it was away come from history.
 */
export function useGroupThread(groupId: string) {
  const [state, dispatch] = useReducer(groupThreadReducer, EMPTY_GROUP_THREAD);
  const [load, setLoad] = useState<GroupThreadLoad>('loading');
  const [loadingOlder, setLoadingOlder] = useState(false);
  const stateRef = useLatest(state);
  const olderInFlight = useRef(false);

  const loadNewest = useCallback(async () => {
    try {
      const envelope = await getGroupMessageList(groupId);
      if (envelope.success && envelope.data) {
        dispatch({ type: 'newestPage', page: envelope.data });
        setLoad('ready');
      } else if (!stateRef.current.loaded) {
        setLoad(envelope.code === ApiCode.notFound ? 'notFound' : 'failed');
      }
    } catch {
      if (!stateRef.current.loaded) setLoad('failed');
    }
  }, [groupId, stateRef]);

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the thread follows the socket (its events feed the reducer, `hello` refetches the newest page), so the first fetch starts with the subscription; loadNewest sets state only after its await.
    void loadNewest();
    return onServerEvent((event) => {
      if (event.event === 'hello') {
        void loadNewest();
        return;
      }
      switch (event.event) {
        case 'groupMessage':
        case 'groupMessageDeleted':
        case 'groupDelta':
        case 'groupDone':
        case 'groupError':
        case 'groupIdle':
          if (event.data.groupId === groupId) dispatch(event);
          break;
        default:
          break;
      }
    });
  }, [groupId, loadNewest]);

  const loadOlder = useCallback(async () => {
    const { hasMore, messages } = stateRef.current;
    const oldest = messages[0];
    if (olderInFlight.current || !hasMore || !oldest) return;
    olderInFlight.current = true;
    setLoadingOlder(true);
    try {
      const envelope = await getGroupMessageList(groupId, oldest.messageId);
      if (envelope.success && envelope.data) dispatch({ type: 'olderPage', page: envelope.data });
    } catch {
      // The connection notification has been shown; scrolling up again retries.
    } finally {
      olderInFlight.current = false;
      setLoadingOlder(false);
    }
  }, [groupId, stateRef]);

  /** Each is false when no socket is connected: nothing was sent. */
  const send = useCallback(
    (content: string) => {
      if (!sendAction({ action: 'groupSend', data: { groupId, content } })) return false;
      dispatch({ type: 'roundRequested' });
      return true;
    },
    [groupId],
  );

  const letThemTalk = useCallback(() => {
    if (!sendAction({ action: 'groupTalk', data: { groupId } })) return false;
    dispatch({ type: 'roundRequested' });
    return true;
  }, [groupId]);

  const pick = useCallback(
    (characterId: string) => {
      if (!sendAction({ action: 'groupPick', data: { groupId, characterId } })) return false;
      dispatch({ type: 'roundRequested' });
      return true;
    },
    [groupId],
  );

  /** The newest reply written again by its member (the old text kept as a version). */
  const regenerate = useCallback(() => {
    if (!sendAction({ action: 'groupRegenerate', data: { groupId } })) return false;
    dispatch({ type: 'roundRequested' });
    return true;
  }, [groupId]);

  /** The rest of the newest reply, by its member. */
  const continueReply = useCallback(() => {
    if (!sendAction({ action: 'groupContinue', data: { groupId } })) return false;
    dispatch({ type: 'roundRequested' });
    return true;
  }, [groupId]);

  /** Version `index` of the newest reply; the server answers with `groupMessage`. */
  const swipe = useCallback(
    (messageId: string, index: number) => sendAction({ action: 'groupSwipe', data: { groupId, messageId, index } }),
    [groupId],
  );

  const edit = useCallback(
    async (messageId: string, content: string): Promise<GroupEditResult> => {
      const envelope = await editGroupMessage(groupId, messageId, content);
      if (envelope.success && envelope.data) {
        dispatch({ type: 'messageEdited', message: envelope.data });
        return { ok: true };
      }
      return { ok: false, code: envelope.code, msg: envelope.msg };
    },
    [groupId],
  );

  const remove = useCallback(
    async (messageId: string) => {
      const envelope = await deleteGroupMessage(groupId, messageId);
      if (envelope.success) dispatch({ type: 'messageRemoved', messageId });
      return envelope.success;
    },
    [groupId],
  );

  const stop = useCallback(() => sendAction({ action: 'groupStop', data: { groupId } }), [groupId]);
  const dismissFailure = useCallback(() => dispatch({ type: 'failureDismissed' }), []);
  const retry = useCallback(() => {
    setLoad('loading');
    void loadNewest();
  }, [loadNewest]);

  return {
    state,
    load,
    loadingOlder,
    loadOlder,
    retry,
    send,
    letThemTalk,
    pick,
    regenerate,
    continueReply,
    swipe,
    edit,
    remove,
    stop,
    dismissFailure,
  };
}

import { useCallback, useEffect, useState } from 'react';
import { getGroupList } from '@/features/groups/api/groups-api';
import { losesNewest, withGroup, withGroupMessage } from '@/features/groups/lib/group-list';
import { useLatest } from '@/hooks/use-latest';
import type { Group } from '@/lib/api-types';
import { onServerEvent } from '@/lib/realtime';

export type GroupListStatus = 'loading' | 'ready' | 'failed';

/**
 * The user's groups, most recently active first. Stored messages (the user's, a member's
 * reply) move their group to the top; one not listed, or a reconnect, refetches the list, as
 * does a delete of the newest message shown.
 * Nothing is asked while `enabled` is false (signed out).
 */
export function useGroupList(enabled: boolean) {
  const [list, setList] = useState<Group[]>([]);
  const [status, setStatus] = useState<GroupListStatus>('loading');
  const listRef = useLatest(list);

  const reload = useCallback(async () => {
    try {
      const envelope = await getGroupList();
      if (envelope.success && Array.isArray(envelope.data)) {
        setList(envelope.data);
        setStatus('ready');
      } else setStatus((s) => (s === 'ready' ? s : 'failed'));
    } catch {
      setStatus((s) => (s === 'ready' ? s : 'failed'));
    }
  }, []);

  useEffect(() => {
    if (!enabled) return;
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the list follows the socket (refetched on `hello` and on a group it does not hold), so its first fetch starts with the subscription; reload sets state only after its await.
    void reload();
    return onServerEvent((event) => {
      if (event.event === 'hello') {
        void reload();
        return;
      }
      if (event.event === 'groupMessageDeleted') {
        // Which message is now the newest is the server's to say.
        if (losesNewest(listRef.current, event.data.groupId, event.data.messageIds)) void reload();
        return;
      }
      if (event.event !== 'groupMessage' && event.event !== 'groupDone') return;
      const { groupId, message } = event.data;
      if (!message) return;
      const next = withGroupMessage(listRef.current, groupId, message);
      if (next) setList(next);
      else void reload();
    });
  }, [enabled, listRef, reload]);

  /** A group created or changed here: the list shows it as the server answered. */
  const put = useCallback((group: Group) => setList((current) => withGroup(current, group)), []);
  const drop = useCallback(
    (groupId: string) => setList((current) => current.filter((group) => group.groupId !== groupId)),
    [],
  );

  return { list, status, reload, put, drop };
}

/**
 * The chat screen with group chats (issue 31): the app composes the two features, which may
 * not import each other. The chat list shows the user's groups beside their conversations,
 * with a "New group" button (which also imports a SillyTavern group chat); `/group/{groupId}` opens a group where a
 * conversation would be; and group chat gets the one-to-one chat's pieces (text, composer,
 * failures, times, the versions bar, the edit form). A one-to-one chat's header gets the
 * Call button of the call feature (issue 32).
 */
import { useAtomValue } from 'jotai';
import { Suspense, useCallback, useMemo, type ReactNode } from 'react';
import { useNavigate, useParams } from 'react-router';
import { chatBeforePagePathAtom, isLoggedInAtom } from '@/app/store';
import { CallButton } from '@/features/call/components/call-button';
import ChatPage, { type ChatScreenExtras } from '@/features/chat/components/chat-page';
import { ContinueIcon, RegenerateIcon } from '@/features/chat/components/chat-icons';
import { formatFullTime, formatListTime } from '@/features/chat/components/chat-time';
import { Composer } from '@/features/chat/components/composer';
import { EditForm } from '@/features/chat/components/edit-form';
import { FailureBanner } from '@/features/chat/components/failure-banner';
import { MessageText } from '@/features/chat/components/message-text';
import { SwipeBar, useSwipeGesture } from '@/features/chat/components/swipe-bar';
import type { ListExtra } from '@/features/chat/lib/list-entries';
import { chatErrorText } from '@/features/chat/lib/error-text';
import { continuedText } from '@/features/chat/stores/chat-thread';
import { ChatPartsContext, type ChatParts } from '@/features/groups/components/chat-parts';
import { GroupConversation } from '@/features/groups/components/group-conversation';
import { GroupListItem } from '@/features/groups/components/group-list-item';
import { NewGroupButton } from '@/features/groups/components/new-group-button';
import { useGroupList } from '@/features/groups/hooks/use-group-list';
import { groupActiveAt } from '@/features/groups/lib/group-list';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { useIsMobile } from '@/hooks/use-media-query';
import type { Group } from '@/lib/api-types';
import { groupPathFor, ROUTES } from '@/lib/routes';

const CHAT_PARTS: ChatParts = {
  MessageText,
  Composer,
  FailureBanner,
  formatFullTime,
  formatListTime: (createdAt, language) => formatListTime(createdAt, language),
  errorText: chatErrorText,
  SwipeBar,
  useSwipeGesture,
  EditForm,
  RegenerateIcon,
  ContinueIcon,
  continuedText,
};

/** `/chat`, `/chat/{characterId}` and `/group/{groupId}`. */
export default function ChatsRoute() {
  const { groupId } = useParams();
  const loggedIn = useAtomValue(isLoggedInAtom);
  const groups = useGroupList(loggedIn);
  const mobile = useIsMobile();
  const navigate = useNavigate();
  const localize = useLocalizedPath();
  const before = useAtomValue(chatBeforePagePathAtom);
  const { put, drop } = groups;

  const opened = useCallback(
    (group: Group) => {
      put(group);
      navigate(localize(groupPathFor(group.groupId)));
    },
    [put, navigate, localize],
  );
  // Back to where the group was opened from on a phone (the list), else the chat list.
  const back = useCallback(() => {
    const recorded = before !== ROUTES.home && before !== window.location.pathname;
    navigate(recorded ? before : localize(ROUTES.chat));
  }, [before, navigate, localize]);
  const deleted = useCallback(
    (id: string) => {
      drop(id);
      navigate(localize(ROUTES.chat), { replace: true });
    },
    [drop, navigate, localize],
  );

  const entries = useMemo<ListExtra<ReactNode>[]>(
    () =>
      groups.list.map((group) => ({
        key: `group-${group.groupId}`,
        activeAt: groupActiveAt(group),
        active: group.groupId === groupId,
        to: groupPathFor(group.groupId),
        item: <GroupListItem group={group} active={group.groupId === groupId} />,
      })),
    [groups.list, groupId],
  );
  const extras: ChatScreenExtras = {
    entries,
    // A failed group list does not hold the chat screen back.
    ready: groups.status !== 'loading',
    actions: <NewGroupButton onMade={opened} />,
    pane: groupId ? (
      <GroupConversation
        key={groupId}
        groupId={groupId}
        listed={groups.list.find((group) => group.groupId === groupId)}
        mobile={mobile}
        onBack={back}
        onChanged={put}
        onDeleted={deleted}
      />
    ) : undefined,
    // Voice calls (issue 32), one-to-one chats only: group chats have no Call button.
    headerAction: (chat) => (
      <Suspense fallback={null}>
        <CallButton {...chat} />
      </Suspense>
    ),
  };

  return (
    <ChatPartsContext.Provider value={CHAT_PARTS}>
      <ChatPage extras={extras} />
    </ChatPartsContext.Provider>
  );
}

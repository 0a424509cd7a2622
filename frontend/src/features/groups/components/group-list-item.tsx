import { useAtomValue, useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { chatBeforePagePathAtom, languageAtom } from '@/app/store';
import { LocalizedLink } from '@/components/localized-link';
import { useChatParts } from '@/features/groups/components/chat-parts';
import styles from '@/features/groups/components/groups.module.css';
import { PortraitStack } from '@/features/groups/components/portrait-stack';
import { groupActiveAt, memberNames } from '@/features/groups/lib/group-list';
import { useIsMobile } from '@/hooks/use-media-query';
import type { Group } from '@/lib/api-types';
import { groupPathFor } from '@/lib/routes';

/**
 * A group in the chat list: the members' portraits, its name, its last message (who said it)
 * and when; before any message, who is in it.
 */
export function GroupListItem({ group, active }: { group: Group; active: boolean }) {
  const { t } = useTranslation();
  const { formatListTime } = useChatParts();
  const language = useAtomValue(languageAtom);
  const mobile = useIsMobile();
  const setBefore = useSetAtom(chatBeforePagePathAtom);
  const last = group.lastMessage;
  const speaker =
    last === null
      ? ''
      : last.characterId === null
        ? t('chat.you')
        : (group.members.find((member) => member.characterId === last.characterId)?.characterName ?? '');
  const at = groupActiveAt(group);
  return (
    <LocalizedLink
      to={groupPathFor(group.groupId)}
      className={styles.listLink}
      aria-current={active ? 'page' : undefined}
      // On a phone the list is a page of its own: the group's back button returns to it.
      onClick={() => {
        if (mobile) setBefore(window.location.pathname);
      }}
      data-testid="group-list-item"
      data-group-id={group.groupId}
    >
      <PortraitStack members={group.members} size="list" />
      <span className={styles.listText}>
        <span className={styles.listTop}>
          <span className={styles.listName}>{group.name}</span>
          <time className={styles.listTime} dateTime={new Date(at).toISOString()}>
            {formatListTime(at, language)}
          </time>
        </span>
        <span className={styles.listPreview}>
          {last ? (
            <>
              {speaker && `${speaker}: `}
              {last.content}
            </>
          ) : (
            memberNames(group, language)
          )}
        </span>
      </span>
    </LocalizedLink>
  );
}

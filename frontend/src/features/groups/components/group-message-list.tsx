import { useAtomValue } from 'jotai';
import { memo, useCallback, useLayoutEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { languageAtom, userInfoAtom } from '@/app/store';
import { Spinner } from '@/components/splash';
import { useChatParts } from '@/features/groups/components/chat-parts';
import styles from '@/features/groups/components/groups.module.css';
import type { GroupThreadState } from '@/features/groups/stores/group-thread';
import type { GroupMember, GroupMessage } from '@/lib/api-types';

/** Scrolling this close to the top loads the page before. */
const LOAD_OLDER_WITHIN_PX = 160;
/** This close to the bottom, new text keeps the view at the bottom. */
const STICK_WITHIN_PX = 96;

/** Who a message is from, as its bubble shows it. */
interface Speaker {
  name: string;
  photo: string;
}

function Avatar({ speaker }: { speaker: Speaker }) {
  return (
    <span className={styles.avatar} aria-hidden="true">
      {speaker.photo ? <img src={speaker.photo} alt="" /> : (speaker.name || '?').slice(0, 1).toUpperCase()}
    </span>
  );
}

const Bubble = memo(function Bubble({
  message,
  speaker,
  mine,
}: {
  message: GroupMessage;
  speaker: Speaker;
  mine: boolean;
}) {
  const { MessageText, formatFullTime } = useChatParts();
  const language = useAtomValue(languageAtom);
  return (
    <li
      className={`${styles.row} ${mine ? styles.mine : styles.theirs}`}
      data-testid="group-message"
      data-speaker={message.characterId ?? 'user'}
      data-message-id={message.messageId}
    >
      <Avatar speaker={speaker} />
      <div className={styles.bubbleColumn}>
        {!mine && (
          <span className={styles.speakerName} data-testid="group-speaker-name">
            {speaker.name}
          </span>
        )}
        <div className={styles.bubble} title={formatFullTime(message.createdAt, language)} data-testid="message-bubble">
          <MessageText text={message.content} />
        </div>
      </div>
    </li>
  );
});

export interface GroupMessageListProps {
  state: GroupThreadState;
  loadingOlder: boolean;
  groupName: string;
  members: readonly GroupMember[];
  onLoadOlder: () => void;
}

/**
 * The group's messages, oldest at the top, each member's with its name and portrait: as the
 * one-to-one list, scrolling near the top loads the page before (keeping the reader's place),
 * and new messages and streaming text keep the view at the bottom unless scrolled up.
 */
export function GroupMessageList({ state, loadingOlder, groupName, members, onLoadOlder }: GroupMessageListProps) {
  const { t } = useTranslation();
  const { MessageText } = useChatParts();
  const user = useAtomValue(userInfoAtom);
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const previous = useRef<{ firstId: string | undefined; height: number; top: number }>({
    firstId: undefined,
    height: 0,
    top: 0,
  });
  const firstId = state.messages[0]?.messageId;
  const streamingText = state.streaming?.text;

  // Before paint: keep the reader's place when older messages came in above, else follow the bottom.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const before = previous.current;
    const prepended = before.firstId !== undefined && firstId !== before.firstId && before.height > 0;
    if (prepended && !atBottom.current) element.scrollTop = before.top + (element.scrollHeight - before.height);
    else if (atBottom.current) element.scrollTop = element.scrollHeight;
    previous.current = { firstId, height: element.scrollHeight, top: element.scrollTop };
  }, [firstId, state.messages, streamingText, state.running]);

  // A first page too short to scroll cannot be scrolled up: fetch the one before it now.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && state.hasMore && !loadingOlder && element.scrollHeight <= element.clientHeight + 8) onLoadOlder();
  }, [state.hasMore, state.messages, loadingOlder, onLoadOlder]);

  const onScroll = useCallback(() => {
    const element = scroller.current;
    if (!element) return;
    atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < STICK_WITHIN_PX;
    previous.current.top = element.scrollTop;
    if (element.scrollTop < LOAD_OLDER_WITHIN_PX && state.hasMore && !loadingOlder) onLoadOlder();
  }, [state.hasMore, loadingOlder, onLoadOlder]);

  // The same objects from render to render, so that the memoised bubbles stay as they are.
  const userName = user?.userName || t('chat.you');
  const userPhoto = user?.userAvatar || '';
  const formerName = t('groups.formerMember');
  const speakerOf = useMemo(() => {
    const you: Speaker = { name: userName, photo: userPhoto };
    // A former member keeps its messages; its name is no longer known here.
    const former: Speaker = { name: formerName, photo: '' };
    const byId = new Map<string, Speaker>(
      members.map((m) => [m.characterId, { name: m.characterName || formerName, photo: m.characterPhoto }]),
    );
    return (characterId: string | null): Speaker => (characterId === null ? you : (byId.get(characterId) ?? former));
  }, [members, userName, userPhoto, formerName]);
  const streaming = state.streaming;
  const streamer = streaming ? speakerOf(streaming.characterId) : null;

  return (
    <div className={styles.scroller} ref={scroller} onScroll={onScroll} data-testid="group-message-list">
      <div className={styles.historyEdge}>
        {state.hasMore ? (
          loadingOlder ? (
            <Spinner label={t('chat.loadingOlder')} />
          ) : null
        ) : (
          <p className={styles.beginning}>{t('groups.beginning', { name: groupName })}</p>
        )}
      </div>
      <ol className={styles.messages} aria-live="polite" aria-relevant="additions">
        {state.messages.map((message) => (
          <Bubble
            key={message.messageId}
            message={message}
            speaker={speakerOf(message.characterId)}
            mine={message.characterId === null}
          />
        ))}
        {streaming && streamer ? (
          <li
            className={`${styles.row} ${styles.theirs}`}
            data-testid="group-streaming"
            data-speaker={streaming.characterId}
          >
            <Avatar speaker={streamer} />
            <div className={styles.bubbleColumn}>
              <span className={styles.speakerName}>{streamer.name}</span>
              <div className={`${styles.bubble} ${styles.streaming}`}>
                <MessageText text={streaming.text} />
                <span className={styles.caret} aria-hidden="true" />
              </div>
            </div>
          </li>
        ) : (
          state.running && (
            <li className={`${styles.row} ${styles.theirs}`} data-testid="group-waiting">
              <span className={styles.avatar} aria-hidden="true" />
              <div className={`${styles.bubble} ${styles.typing}`} role="status" aria-label={t('groups.thinking')}>
                <span />
                <span />
                <span />
              </div>
            </li>
          )
        )}
      </ol>
    </div>
  );
}

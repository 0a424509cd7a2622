import { useAtomValue } from 'jotai';
import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { languageAtom, userInfoAtom } from '@/app/store';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { PencilIcon, TrashIcon } from '@/components/icons';
import { Spinner } from '@/components/splash';
import { MESSAGE_MAX_CHARS } from '@/features/groups/api/groups-api';
import { useChatParts, type PartsSwipe } from '@/features/groups/components/chat-parts';
import styles from '@/features/groups/components/groups.module.css';
import type { GroupEditResult } from '@/features/groups/hooks/use-group-thread';
import {
  continuedGroupMessageId,
  groupReplyControls,
  groupSwipeControls,
  type GroupThreadState,
} from '@/features/groups/stores/group-thread';
import { useLatest } from '@/hooks/use-latest';
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

/** What a bubble's buttons do: the same for every bubble (stable, for the memoised bubbles). */
interface BubbleActions {
  onEdit: (messageId: string, content: string) => Promise<GroupEditResult>;
  onAskDelete: (message: GroupMessage) => void;
  onSwipe: (messageId: string, index: number) => void;
  onNewVersion: () => void;
}

interface BubbleProps {
  message: GroupMessage;
  speaker: Speaker;
  mine: boolean;
  actions: BubbleActions;
  /** A round runs: the user's messages are not changed meanwhile. */
  running: boolean;
  /** The text of this reply's continuation so far, while it is being continued. */
  continuation: string | null;
  /** On the newest reply: its versions. */
  swipe: PartsSwipe | null;
}

/** One stored message: the user's own can be edited in place or deleted; the newest reply shows its versions. */
const Bubble = memo(function Bubble({ message, speaker, mine, actions, running, continuation, swipe }: BubbleProps) {
  const { t } = useTranslation();
  const { MessageText, formatFullTime, errorText, EditForm, SwipeBar, useSwipeGesture, continuedText } = useChatParts();
  const language = useAtomValue(languageAtom);
  const choose = (index: number) => actions.onSwipe(message.messageId, index);
  const gesture = useSwipeGesture(swipe, choose, actions.onNewVersion);
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const save = async () => {
    const content = (draft ?? '').trim();
    if (!content || busy) return;
    if (content === message.content) {
      setDraft(null);
      return;
    }
    setBusy(true);
    try {
      const result = await actions.onEdit(message.messageId, content);
      if (result.ok) {
        setDraft(null);
        setError(null);
      } else setError(errorText(t, result.code, result.msg));
    } catch {
      // The connection notification has been shown; the draft stays.
    } finally {
      setBusy(false);
    }
  };

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
        {draft === null ? (
          <div
            className={`${styles.bubble} ${swipe ? styles.swipeable : ''} ${continuation !== null ? styles.streaming : ''}`}
            title={formatFullTime(message.createdAt, language)}
            data-testid="message-bubble"
            style={gesture.offset ? { transform: `translateX(${gesture.offset}px)` } : undefined}
            {...gesture.handlers}
          >
            <MessageText
              text={continuation !== null ? continuedText(message.content, continuation) : message.content}
            />
            {continuation !== null && <span className={styles.caret} aria-hidden="true" />}
          </div>
        ) : (
          <EditForm
            className={styles.editForm}
            value={draft}
            maxLength={MESSAGE_MAX_CHARS}
            label={t('chat.edit')}
            error={error}
            busy={busy}
            onChange={setDraft}
            onCancel={() => setDraft(null)}
            onSubmit={() => void save()}
          />
        )}
        {mine && draft === null && (
          <div className={styles.messageTools}>
            <button
              type="button"
              className={styles.toolButton}
              disabled={running}
              onClick={() => {
                setError(null);
                setDraft(message.content);
              }}
              aria-label={t('chat.edit')}
              title={t('chat.edit')}
              data-testid="group-message-edit"
            >
              <PencilIcon size={15} />
            </button>
            <button
              type="button"
              className={styles.toolButton}
              disabled={running}
              onClick={() => actions.onAskDelete(message)}
              aria-label={t('chat.deleteMessage')}
              title={t('chat.deleteMessage')}
              data-testid="group-message-delete"
            >
              <TrashIcon size={15} />
            </button>
          </div>
        )}
        {swipe && <SwipeBar swipe={swipe} onChoose={choose} onNewVersion={actions.onNewVersion} />}
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
  /** Write the newest reply again (`groupRegenerate`); false when nothing was sent. */
  onRegenerate: () => void;
  /** Write the rest of the newest reply (`groupContinue`). */
  onContinue: () => void;
  /** Show version `index` of the newest reply (`groupSwipe`). */
  onSwipe: (messageId: string, index: number) => void;
  onEdit: (messageId: string, content: string) => Promise<GroupEditResult>;
  onDelete: (messageId: string) => Promise<boolean>;
}

/**
 * The group's messages, oldest at the top, each member's with its name and portrait: as the
 * one-to-one list, scrolling near the top loads the page before (keeping the reader's place),
 * and new messages and streaming text keep the view at the bottom unless scrolled up. As in
 * one-to-one chat, the newest reply can be written again, continued and switched between its
 * versions, and the user's own messages edited in place or deleted; not while a round runs.
 */
export function GroupMessageList({
  state,
  loadingOlder,
  groupName,
  members,
  onLoadOlder,
  onRegenerate,
  onContinue,
  onSwipe,
  onEdit,
  onDelete,
}: GroupMessageListProps) {
  const { t } = useTranslation();
  const { MessageText, RegenerateIcon, ContinueIcon } = useChatParts();
  const [deleting, setDeleting] = useState<GroupMessage | null>(null);
  const controls = groupReplyControls(state);
  const swipe = groupSwipeControls(state);
  const continuing = continuedGroupMessageId(state);
  // Stable for the memoised bubbles, whatever the parent passes.
  const latest = useLatest({ onRegenerate, onSwipe, onEdit });
  const bubbleActions = useMemo<BubbleActions>(
    () => ({
      onEdit: (messageId, content) => latest.current.onEdit(messageId, content),
      onAskDelete: setDeleting,
      onSwipe: (messageId, index) => latest.current.onSwipe(messageId, index),
      onNewVersion: () => latest.current.onRegenerate(),
    }),
    [latest],
  );
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
            actions={bubbleActions}
            running={state.running}
            continuation={message.messageId === continuing ? (streaming?.text ?? '') : null}
            swipe={swipe?.messageId === message.messageId && swipe.count > 1 ? swipe : null}
          />
        ))}
        {streaming && streamer && continuing === null ? (
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
          state.running &&
          continuing === null && (
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
      {(controls.regenerate || controls.continue) && (
        <div className={styles.replyTools}>
          {controls.regenerate && (
            <button type="button" className={styles.pillButton} onClick={onRegenerate} data-testid="group-regenerate">
              <RegenerateIcon size={15} />
              {t('chat.regenerate')}
            </button>
          )}
          {controls.continue && (
            <button
              type="button"
              className={styles.pillButton}
              onClick={onContinue}
              title={t('chat.continueTitle')}
              data-testid="group-continue"
            >
              <ContinueIcon size={15} />
              {t('chat.continue')}
            </button>
          )}
        </div>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('chat.deleteMessageTitle')}
        text={t('chat.deleteMessageText')}
        confirmLabel={t('chat.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (deleting && (await onDelete(deleting.messageId).catch(() => false))) setDeleting(null);
        }}
        testId="group-delete-message-dialog"
      />
    </div>
  );
}

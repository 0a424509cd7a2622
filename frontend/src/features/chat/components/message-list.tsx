import { useAtomValue } from 'jotai';
import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { languageAtom, userInfoAtom } from '@/app/store';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { PencilIcon, TrashIcon } from '@/components/icons';
import { FlagIcon } from '@/components/moderation-icons';
import { Spinner } from '@/components/splash';
import { MESSAGE_MAX_CHARS } from '@/features/chat/api/chat-api';
import { ContinueIcon, RegenerateIcon } from '@/features/chat/components/chat-icons';
import { ChatPicture } from '@/features/chat/components/chat-pictures';
import { formatFullTime } from '@/features/chat/components/chat-time';
import styles from '@/features/chat/components/chat.module.css';
import { EditForm } from '@/features/chat/components/edit-form';
import { MessageText } from '@/features/chat/components/message-text';
import { PlayButton, type VoiceButtonState } from '@/features/chat/components/play-button';
import { RememberedNote, type MemoryFixes } from '@/features/chat/components/remembered-note';
import { SwipeBar, useSwipeGesture, type SwipeState } from '@/features/chat/components/swipe-bar';
import type { EditResult } from '@/features/chat/hooks/use-chat-thread';
import { chatErrorText } from '@/features/chat/lib/error-text';
import {
  continuedMessageId,
  continuedText,
  newestReplyParentId,
  replyControls,
  swipeControls,
  type ThreadState,
} from '@/features/chat/stores/chat-thread';
import type { Playback } from '@/features/chat/stores/voice-playback';
import { useLatest } from '@/hooks/use-latest';
import type { ChatMessage, Recalled } from '@/lib/api-types';

/** Scrolling this close to the top loads the page before. */
const LOAD_OLDER_WITHIN_PX = 160;
/** This close to the bottom, new text keeps the view at the bottom. */
const STICK_WITHIN_PX = 96;

export interface MessageListProps {
  state: ThreadState;
  loadingOlder: boolean;
  characterName: string;
  characterPhoto: string;
  onLoadOlder: () => void;
  onRegenerate: () => void;
  /** Write the rest of the newest reply (`chatContinue`). */
  onContinue?: () => void;
  /** Show version `index` of the newest reply (`chatSwipe`). */
  onSwipe?: (messageId: string, index: number) => void;
  onEdit: (messageId: string, content: string) => Promise<EditResult>;
  onDelete: (messageId: string) => Promise<boolean>;
  /** Report one of the character's replies. */
  onReport: (message: ChatMessage) => void;
  /** The play buttons of the character's messages (issue 16). */
  voice?: VoiceControls;
  /** A picture in a message was clicked: the full view. */
  onOpenPicture?: (message: ChatMessage) => void;
  /** Rows after the messages: pictures on their way. */
  trailing?: ReactNode;
  /** What replies recalled (`chatDone.recalled`), shown as a note under each, and how a wrong memory is fixed there. */
  remembered?: { of: (messageId: string) => Recalled | undefined; fixes?: MemoryFixes };
}

/** What the play buttons need: each message's state, and the shared actions. */
export interface VoiceControls {
  stateOf: (messageId: string) => { state: VoiceButtonState; spokenBefore: boolean; failure: Playback['failure'] };
  cost: number;
  onToggle: (messageId: string) => void;
  onDismiss: () => void;
}

function Avatar({ src, name }: { src: string | null | undefined; name: string }) {
  return (
    <span className={styles.avatar} aria-hidden="true">
      {src ? <img src={src} alt="" /> : (name || '?').slice(0, 1).toUpperCase()}
    </span>
  );
}

/** Who speaks in the conversation: the same for every bubble. */
interface BubblePeople {
  characterName: string;
  characterPhoto: string;
  userAvatar: string | null;
  userName: string;
}

/** What a bubble's buttons do: the same for every bubble (stable, for the memoised bubbles). */
interface BubbleActions {
  onEdit: MessageListProps['onEdit'];
  onAskDelete: (message: ChatMessage) => void;
  onReport: (message: ChatMessage) => void;
  voice: VoiceControls | undefined;
  onOpenPicture: ((message: ChatMessage) => void) | undefined;
  onSwipe: ((messageId: string, index: number) => void) | undefined;
  onNewVersion: () => void;
}

/** What changes for one message while it is shown; compared field by field. */
interface BubbleLive {
  /** Null for the user's messages (or without voice). */
  voiceState: VoiceButtonState | null;
  spokenBefore: boolean;
  voiceFailure: Playback['failure'];
  /** The text of this reply's continuation so far, while it is being continued. */
  continuation: string | null;
  /** On the newest reply: its versions. */
  swipe: SwipeState | null;
  /** What this reply recalled, if anything, and how its memories are fixed. */
  recalled?: Recalled;
  fixes?: MemoryFixes;
}

interface BubbleProps {
  message: ChatMessage;
  people: BubblePeople;
  actions: BubbleActions;
  live: BubbleLive;
}

function sameLive(a: BubbleLive, b: BubbleLive): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as (keyof BubbleLive)[]);
  return [...keys].every((key) => Object.is(a[key], b[key]));
}

/** A bubble renders again only when its message, the people, the actions or its live state changed. */
function sameBubble(a: BubbleProps, b: BubbleProps): boolean {
  return a.message === b.message && a.people === b.people && a.actions === b.actions && sameLive(a.live, b.live);
}

/** One stored message; the user's own can be edited in place or deleted, the character's reported. */
const MessageBubble = memo(function MessageBubble({ message, people, actions, live }: BubbleProps) {
  const { characterName, characterPhoto, userAvatar, userName } = people;
  const { onEdit, onAskDelete, onReport, voice, onOpenPicture, onSwipe, onNewVersion } = actions;
  const { voiceState, spokenBefore, voiceFailure, continuation, swipe, recalled, fixes } = live;
  const { t } = useTranslation();
  const choose = (index: number) => onSwipe?.(message.messageId, index);
  const gesture = useSwipeGesture(onSwipe ? swipe : null, choose, onNewVersion);
  const language = useAtomValue(languageAtom);
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const mine = message.speaker === 'user';

  const save = async () => {
    const content = (draft ?? '').trim();
    if (!content || busy) return;
    if (content === message.content) {
      setDraft(null);
      return;
    }
    setBusy(true);
    try {
      const result = await onEdit(message.messageId, content);
      if (result.ok) {
        setDraft(null);
        setError(null);
      } else setError(chatErrorText(t, result.code, result.msg));
    } catch {
      // The connection notification has been shown; the draft stays.
    } finally {
      setBusy(false);
    }
  };

  return (
    <li
      className={`${styles.row} ${mine ? styles.mine : styles.theirs}`}
      data-testid="chat-message"
      data-speaker={message.speaker}
      data-message-id={message.messageId}
    >
      {mine ? <Avatar src={userAvatar} name={userName} /> : <Avatar src={characterPhoto} name={characterName} />}
      <div className={styles.bubbleColumn}>
        {message.image && (
          <ChatPicture
            image={message.image}
            alt={message.content || characterName}
            onOpen={() => onOpenPicture?.(message)}
          />
        )}
        {draft === null ? (
          (!message.image || message.content.trim()) && (
            <div
              className={`${styles.bubble} ${swipe && onSwipe ? styles.swipeable : ''} ${continuation !== null ? styles.streaming : ''}`}
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
          )
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
              onClick={() => {
                setError(null);
                setDraft(message.content);
              }}
              aria-label={t('chat.edit')}
              title={t('chat.edit')}
            >
              <PencilIcon size={15} />
            </button>
            <button
              type="button"
              className={styles.toolButton}
              onClick={() => onAskDelete(message)}
              aria-label={t('chat.deleteMessage')}
              title={t('chat.deleteMessage')}
            >
              <TrashIcon size={15} />
            </button>
          </div>
        )}
        {swipe && onSwipe && <SwipeBar swipe={swipe} onChoose={choose} onNewVersion={onNewVersion} />}
        {!mine && recalled && <RememberedNote recalled={recalled} fixes={fixes} />}
        {!mine && voice && voiceState && message.content.trim() && (
          <PlayButton
            state={voiceState}
            spokenBefore={spokenBefore}
            cost={voice.cost}
            failure={voiceFailure}
            onToggle={() => voice.onToggle(message.messageId)}
            onDismiss={voice.onDismiss}
          />
        )}
        {!mine && (
          <div className={styles.messageTools}>
            <button
              type="button"
              className={styles.toolButton}
              onClick={() => onReport(message)}
              aria-label={t('report.reportReply')}
              title={t('report.reportReply')}
              data-testid="report-reply"
            >
              <FlagIcon size={15} />
            </button>
          </div>
        )}
      </div>
    </li>
  );
}, sameBubble);

/**
 * The conversation, oldest at the top: scrolling near the top loads the page before
 * (keeping what is on screen in place), and new messages and streaming text keep the view
 * at the bottom unless the reader has scrolled up.
 */
export function MessageList({
  state,
  loadingOlder,
  characterName,
  characterPhoto,
  onLoadOlder,
  onRegenerate,
  onContinue,
  onSwipe,
  onEdit,
  onDelete,
  onReport,
  voice,
  onOpenPicture,
  trailing,
  remembered,
}: MessageListProps) {
  const { t } = useTranslation();
  const user = useAtomValue(userInfoAtom);
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const previous = useRef<{ firstId: string | undefined; height: number; top: number }>({
    firstId: undefined,
    height: 0,
    top: 0,
  });
  const [deleting, setDeleting] = useState<ChatMessage | null>(null);
  const controls = replyControls(state);
  const swipe = swipeControls(state);
  // Stable for the memoised bubbles, whatever the parent passes.
  const actions = useLatest({ onRegenerate, onSwipe });
  const newVersion = useCallback(() => actions.current.onRegenerate(), [actions]);
  const choose = useCallback(
    (messageId: string, index: number) => actions.current.onSwipe?.(messageId, index),
    [actions],
  );
  const continuing = continuedMessageId(state);
  // After an edit of the message the newest reply answers: offer to write that reply again.
  const [offerFor, setOfferFor] = useState<string | null>(null);
  const parentOfNewest = newestReplyParentId(state);
  const offered = offerFor !== null && offerFor === parentOfNewest && !state.pending;
  const edit = useCallback(
    async (messageId: string, content: string) => {
      const result = await onEdit(messageId, content);
      if (result.ok) setOfferFor(messageId);
      return result;
    },
    [onEdit, setOfferFor],
  );
  const firstId = state.messages[0]?.messageId;
  const pendingText = state.pending?.text;

  // Before paint: keep the reader's place when older messages came in above, else follow the bottom.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const before = previous.current;
    const prepended = before.firstId !== undefined && firstId !== before.firstId && before.height > 0;
    if (prepended && !atBottom.current) element.scrollTop = before.top + (element.scrollHeight - before.height);
    else if (atBottom.current) element.scrollTop = element.scrollHeight;
    previous.current = { firstId, height: element.scrollHeight, top: element.scrollTop };
  }, [firstId, state.messages, pendingText, state.pending]);

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

  const userName = user?.userName || t('chat.you');
  const userAvatar = user?.userAvatar || null;
  const people = useMemo(
    () => ({ characterName, characterPhoto, userAvatar, userName }),
    [characterName, characterPhoto, userAvatar, userName],
  );
  const bubbleActions = useMemo<BubbleActions>(
    () => ({
      onEdit: edit,
      onAskDelete: setDeleting,
      onReport,
      voice,
      onOpenPicture,
      onSwipe: onSwipe ? choose : undefined,
      onNewVersion: newVersion,
    }),
    [edit, onReport, voice, onOpenPicture, onSwipe, choose, newVersion],
  );
  const newest = state.messages[state.messages.length - 1];

  return (
    <div className={styles.scroller} ref={scroller} onScroll={onScroll} data-testid="message-list">
      <div className={styles.historyEdge}>
        {state.hasMore ? (
          loadingOlder ? (
            <Spinner label={t('chat.loadingOlder')} />
          ) : null
        ) : (
          <p className={styles.beginning}>{t('chat.beginning', { name: characterName })}</p>
        )}
      </div>
      <ol className={styles.messages} aria-live="polite" aria-relevant="additions">
        {state.messages.map((message) => {
          const spoken = message.speaker === 'character' && voice ? voice.stateOf(message.messageId) : null;
          const recalled = message.speaker === 'character' ? remembered?.of(message.messageId) : undefined;
          return (
            <MessageBubble
              key={message.messageId}
              message={message}
              people={people}
              actions={bubbleActions}
              live={{
                voiceState: spoken?.state ?? null,
                spokenBefore: spoken?.spokenBefore ?? false,
                voiceFailure: spoken?.failure ?? null,
                continuation: message.messageId === continuing ? (state.pending?.text ?? '') : null,
                swipe: swipe?.messageId === message.messageId ? swipe : null,
                recalled,
                fixes: recalled ? remembered?.fixes : undefined,
              }}
            />
          );
        })}
        {trailing}
        {state.pending && continuing === null && (
          <li className={`${styles.row} ${styles.theirs}`} data-testid="pending-reply">
            <Avatar src={characterPhoto} name={characterName} />
            <div className={styles.bubbleColumn}>
              {state.pending.text ? (
                <div className={`${styles.bubble} ${styles.streaming}`} data-testid="pending-reply-text">
                  <MessageText text={state.pending.text} />
                  <span className={styles.caret} aria-hidden="true" />
                </div>
              ) : (
                <div
                  className={`${styles.bubble} ${styles.typing}`}
                  role="status"
                  aria-label={t('chat.typing', { name: characterName })}
                >
                  <span />
                  <span />
                  <span />
                </div>
              )}
            </div>
          </li>
        )}
      </ol>
      {offered ? (
        <div className={styles.regenerateOffer} role="status" data-testid="regenerate-offer">
          <span>{t('chat.regenerateOffer')}</span>
          <button
            type="button"
            className={styles.pillButton}
            onClick={() => {
              setOfferFor(null);
              onRegenerate();
            }}
            data-testid="regenerate-offer-accept"
          >
            <RegenerateIcon size={15} />
            {t('chat.regenerateOfferAccept')}
          </button>
          <button
            type="button"
            className={styles.textButton}
            onClick={() => setOfferFor(null)}
            data-testid="regenerate-offer-dismiss"
          >
            {t('chat.regenerateOfferDismiss')}
          </button>
        </div>
      ) : (
        (controls.regenerate || controls.retry || (controls.continue && onContinue)) &&
        newest && (
          <div className={styles.replyTools}>
            {(controls.regenerate || controls.retry) && (
              <button
                type="button"
                className={styles.pillButton}
                onClick={onRegenerate}
                data-testid={controls.regenerate ? 'regenerate' : 'retry-reply'}
              >
                <RegenerateIcon size={15} />
                {controls.regenerate ? t('chat.regenerate') : t('chat.retryReply')}
              </button>
            )}
            {controls.continue && onContinue && (
              <button
                type="button"
                className={styles.pillButton}
                onClick={onContinue}
                title={t('chat.continueTitle')}
                data-testid="continue-reply"
              >
                <ContinueIcon size={15} />
                {t('chat.continue')}
              </button>
            )}
          </div>
        )
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
        testId="delete-message-dialog"
      />
    </div>
  );
}

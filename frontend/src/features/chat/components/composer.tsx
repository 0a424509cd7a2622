import { useAtomValue } from 'jotai';
import { useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { realtimeConnectedAtom } from '@/app/store';
import { LocalizedLink } from '@/components/localized-link';
import { MESSAGE_MAX_CHARS } from '@/features/chat/api/chat-api';
import { PictureIcon, SendIcon, StopIcon } from '@/features/chat/components/chat-icons';
import styles from '@/features/chat/components/chat.module.css';
import { notify } from '@/lib/notifications';
import { ROUTES } from '@/lib/routes';

/** The counter shows once a message gets this long. */
const SHOW_COUNT_FROM = MESSAGE_MAX_CHARS - 200;
/** The input grows with its text up to this height, then scrolls. */
const MAX_INPUT_HEIGHT_PX = 160;

export interface ComposerProps {
  characterName: string;
  /** A reply is being written: the button stops it instead of sending. */
  replying: boolean;
  creditsLeft: number | null;
  /** False when nothing could be sent (no socket). */
  onSend: (content: string) => boolean;
  onStop: () => boolean;
  /** Ask the character for a picture (issue 16); the button shows what one costs. */
  onPicture?: () => void;
  /** `genPictureCoin`, shown ÷ 10. */
  pictureCost?: string;
}

/**
 * The message input: Enter sends, Shift+Enter starts a new line, at most 2,000 characters
 * (the server's limit); while a reply streams the send button is a stop button. Free users
 * see how many messages are left today.
 */
export function Composer({
  characterName,
  replying,
  creditsLeft,
  onSend,
  onStop,
  onPicture,
  pictureCost,
}: ComposerProps) {
  const { t } = useTranslation();
  const connected = useAtomValue(realtimeConnectedAtom);
  const [text, setText] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  const content = text.trim();
  const outOfCredits = creditsLeft === 0;

  useLayoutEffect(() => {
    const element = input.current;
    if (!element) return;
    element.style.height = 'auto';
    element.style.height = `${Math.min(element.scrollHeight, MAX_INPUT_HEIGHT_PX)}px`;
  }, [text]);

  const send = () => {
    if (!content || replying) return;
    if (!onSend(content)) {
      notify.warning(t('chat.offline'));
      return;
    }
    setText('');
  };

  return (
    <div className={styles.composer}>
      <form
        className={styles.inputRow}
        onSubmit={(event) => {
          event.preventDefault();
          send();
        }}
      >
        {onPicture && (
          <button
            type="button"
            className={styles.pictureButton}
            onClick={onPicture}
            aria-label={t('chat.askPicture', { cost: pictureCost })}
            title={t('chat.askPicture', { cost: pictureCost })}
            data-testid="chat-picture-button"
          >
            <PictureIcon size={20} />
          </button>
        )}
        <textarea
          ref={input}
          className={styles.input}
          value={text}
          rows={1}
          maxLength={MESSAGE_MAX_CHARS}
          placeholder={t('chat.placeholder', { name: characterName })}
          aria-label={t('chat.messageLabel')}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              send();
            }
          }}
          data-testid="chat-input"
        />
        {replying ? (
          <button
            type="button"
            className={`${styles.sendButton} ${styles.stopButton}`}
            onClick={() => {
              if (!onStop()) notify.warning(t('chat.offline'));
            }}
            aria-label={t('chat.stop')}
            title={t('chat.stop')}
            data-testid="chat-stop"
          >
            <StopIcon size={20} />
          </button>
        ) : (
          <button
            type="submit"
            className={styles.sendButton}
            disabled={!content}
            aria-label={t('chat.send')}
            title={t('chat.send')}
            data-testid="chat-send"
          >
            <SendIcon size={20} />
          </button>
        )}
      </form>
      <div className={styles.composerNote}>
        {!connected ? (
          <span className={styles.reconnecting} role="status">
            {t('chat.connecting')}
          </span>
        ) : creditsLeft !== null ? (
          <span className={outOfCredits ? styles.creditsOut : undefined} data-testid="credits-left">
            {t('chat.creditsLeft', { left: creditsLeft })}
            {outOfCredits && (
              <>
                {' '}
                <LocalizedLink to={ROUTES.pricing} className={styles.inlineLink}>
                  {t('chat.upgrade')}
                </LocalizedLink>
              </>
            )}
          </span>
        ) : (
          <span className={styles.hint}>{t('chat.sendHint')}</span>
        )}
        {text.length >= SHOW_COUNT_FROM && (
          <span className={text.length >= MESSAGE_MAX_CHARS ? styles.creditsOut : undefined}>
            {t('chat.charCount', { length: text.length, max: MESSAGE_MAX_CHARS })}
          </span>
        )}
      </div>
    </div>
  );
}

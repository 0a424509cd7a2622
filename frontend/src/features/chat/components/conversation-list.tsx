import { useAtomValue } from 'jotai';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { interestedGenderAtom, languageAtom } from '@/app/store';
import { buttonClassName } from '@/components/button';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { ChatIcon, TrashIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { Spinner } from '@/components/splash';
import { formatListTime } from '@/features/chat/components/chat-time';
import styles from '@/features/chat/components/chat.module.css';
import { mergeByActivity, type ListExtra } from '@/features/chat/lib/list-entries';
import type { ChatSummary } from '@/lib/api-types';
import { chatPathFor, homePathFor } from '@/lib/routes';

/** The chat open beside the list: its character, and the text to preview (its greeting). */
export interface OpenChat {
  characterId: string;
  characterName: string;
  characterPhoto: string;
  preview: string;
}

export interface ConversationListProps {
  list: ChatSummary[];
  /**
   * The chat open beside the list. One the list does not hold yet (just opened with its
   * greeting, or written to before the list was asked again) still shows, first: the list
   * never says "No chats yet" beside an open chat.
   */
  open?: OpenChat | undefined;
  status: 'loading' | 'ready' | 'failed';
  activeId: string | undefined;
  onOpen: (characterId: string) => void;
  onDelete: (characterId: string) => Promise<boolean>;
  onRetry: () => void;
  /**
   * Entries the app adds beside the conversations (group chats): each a list item of its
   * own, placed by when it was last active.
   */
  extras?: readonly ListExtra<ReactNode>[];
  /** Buttons beside the list's heading ("New group"). */
  actions?: ReactNode;
}

/** The user's chats, most recent first: portrait, name, last message and its time; each can be deleted. */
export function ConversationList({
  list,
  open,
  status,
  activeId,
  onOpen,
  onDelete,
  onRetry,
  extras = [],
  actions,
}: ConversationListProps) {
  const { t } = useTranslation();
  const language = useAtomValue(languageAtom);
  const gender = useAtomValue(interestedGenderAtom);
  const [deleting, setDeleting] = useState<ChatSummary | null>(null);
  const unlisted = open && !list.some((summary) => summary.characterId === open.characterId) ? open : null;

  let body;
  const none = list.length === 0 && extras.length === 0 && !unlisted;
  if (status === 'loading' && none) body = <Spinner label={t('common.loading')} />;
  else if (status === 'failed' && none)
    body = (
      <div className={styles.listEmpty}>
        <p>{t('chat.listFailed')}</p>
        <button type="button" className={buttonClassName({ variant: 'secondary', size: 'small' })} onClick={onRetry}>
          {t('home.retry')}
        </button>
      </div>
    );
  else if (none)
    body = (
      <div className={styles.listEmpty} data-testid="chat-list-empty">
        <span className={styles.emptyIcon}>
          <ChatIcon size={26} />
        </span>
        <p className={styles.emptyTitle}>{t('chat.emptyListTitle')}</p>
        <p>{t('chat.emptyListText')}</p>
        <LocalizedLink to={homePathFor(gender)} className={buttonClassName({ size: 'small' })}>
          {t('chat.explore')}
        </LocalizedLink>
      </div>
    );
  else
    body = (
      <ul className={styles.list}>
        {unlisted && openItem(unlisted)}
        {mergeByActivity(list, extras).map((entry) => {
          if (entry.kind === 'extra')
            return (
              <li
                key={entry.extra.key}
                className={`${styles.listItem} ${entry.extra.active ? styles.listActive : ''}`}
                data-testid="chat-list-extra"
              >
                {entry.extra.item}
              </li>
            );
          const { summary } = entry;
          const last = summary.lastMessage;
          const active = summary.characterId === activeId;
          return (
            <li
              key={summary.characterId}
              className={`${styles.listItem} ${active ? styles.listActive : ''}`}
              data-testid="chat-list-item"
              data-character-id={summary.characterId}
            >
              <LocalizedLink
                to={chatPathFor(summary.characterId)}
                className={styles.listLink}
                aria-current={active ? 'page' : undefined}
                onClick={() => onOpen(summary.characterId)}
              >
                <span className={styles.listPortrait}>
                  <img src={summary.characterPhoto} alt="" loading="lazy" />
                </span>
                <span className={styles.listText}>
                  <span className={styles.listTop}>
                    <span className={styles.listName}>{summary.characterName}</span>
                    <time className={styles.listTime} dateTime={new Date(last.createdAt).toISOString()}>
                      {formatListTime(last.createdAt, language)}
                    </time>
                  </span>
                  <span className={styles.listPreview}>
                    {last.speaker === 'user' ? `${t('chat.you')}: ` : ''}
                    {last.content}
                  </span>
                </span>
              </LocalizedLink>
              <button
                type="button"
                className={`${styles.toolButton} ${styles.listDelete}`}
                onClick={() => setDeleting(summary)}
                aria-label={t('chat.deleteChatOf', { name: summary.characterName })}
                title={t('chat.deleteChat')}
                data-testid="chat-list-delete"
              >
                <TrashIcon size={16} />
              </button>
            </li>
          );
        })}
      </ul>
    );

  function openItem(chat: OpenChat) {
    return (
      <li
        key={chat.characterId}
        className={`${styles.listItem} ${styles.listActive}`}
        data-testid="chat-list-item"
        data-character-id={chat.characterId}
      >
        <LocalizedLink
          to={chatPathFor(chat.characterId)}
          className={styles.listLink}
          aria-current="page"
          onClick={() => onOpen(chat.characterId)}
        >
          <span className={styles.listPortrait}>{chat.characterPhoto && <img src={chat.characterPhoto} alt="" />}</span>
          <span className={styles.listText}>
            <span className={styles.listTop}>
              <span className={styles.listName}>{chat.characterName}</span>
            </span>
            <span className={styles.listPreview}>{chat.preview}</span>
          </span>
        </LocalizedLink>
      </li>
    );
  }

  return (
    <nav className={styles.conversations} aria-label={t('chat.conversations')} data-testid="chat-list">
      <div className={styles.listHead}>
        <h2 className={styles.listHeading}>{t('chat.title')}</h2>
        {actions}
      </div>
      {body}
      <ConfirmDialog
        open={deleting !== null}
        title={t('chat.deleteChatTitle')}
        text={t('chat.deleteChatText', { name: deleting?.characterName ?? '' })}
        confirmLabel={t('chat.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (deleting && (await onDelete(deleting.characterId).catch(() => false))) setDeleting(null);
        }}
        testId="delete-chat-dialog"
      />
    </nav>
  );
}

import { useAtomValue, useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { chatBeforePagePathAtom, userInfoAtom } from '@/app/store';
import { Button, buttonClassName } from '@/components/button';
import { ChatIcon, CopyIcon, PencilIcon, TrashIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import type { CardFormat, MyCharacter } from '@/features/create/api/create-api';
import styles from '@/features/create/components/create.module.css';
import { fillPlaceholders } from '@/lib/placeholders';
import { chatPathFor, ROUTES } from '@/lib/routes';

export interface MyCharacterCardProps {
  item: MyCharacter;
  busy: boolean;
  /** Just created: drawn out so the user finds it. */
  highlight: boolean;
  onDuplicate: () => void;
  onToggleVisibility: () => void;
  onExport: (format: CardFormat) => void;
  onDelete: () => void;
}

/** One of the user's characters: portrait, status, name, age, introduction, and its actions. */
export function MyCharacterCard({
  item,
  busy,
  highlight,
  onDuplicate,
  onToggleVisibility,
  onExport,
  onDelete,
}: MyCharacterCardProps) {
  const { t } = useTranslation('create');
  const { t: tApp } = useTranslation();
  const setChatBefore = useSetAtom(chatBeforePagePathAtom);
  const userName = useAtomValue(userInfoAtom)?.userName || tApp('chat.you');
  const { character, status } = item;
  const goingPublic = status === 'private' || status === 'rejected';
  return (
    <li
      className={styles.card}
      data-testid="my-character"
      data-character-id={character.characterId}
      data-status={status}
      data-highlight={highlight}
    >
      <div className={styles.cardPhoto}>
        {character.characterPhoto && <img src={character.characterPhoto} alt="" loading="lazy" decoding="async" />}
        <span className={styles.badges}>
          <span className={styles.badge} data-status={status} data-testid="status-badge">
            {t(`myAi.status.${status}`)}
          </span>
          {item.nsfw && <span className={styles.badge}>18+</span>}
          {item.imported && <span className={styles.badge}>{t('myAi.importedBadge')}</span>}
        </span>
      </div>
      <div className={styles.cardBody}>
        <span className={styles.cardName} data-testid="my-character-name">
          {character.characterName}
        </span>
        <span className={styles.cardMeta}>{tApp('home.age', { count: character.characterAge })}</span>
        {status === 'rejected' && item.reviewReason && (
          <p className={styles.reason} data-testid="review-reason">
            {t('myAi.rejectedReason', { reason: item.reviewReason })}
          </p>
        )}
        <p className={styles.cardIntro}>
          {fillPlaceholders(character.introduction, character.characterName, userName)}
        </p>
      </div>
      <div className={styles.cardActions}>
        <LocalizedLink
          to={chatPathFor(character.characterId)}
          onClick={() => setChatBefore(ROUTES.myAi)}
          className={buttonClassName({ size: 'small' })}
          data-testid="my-character-chat"
        >
          <ChatIcon size={14} /> {t('myAi.actions.chat')}
        </LocalizedLink>
        <LocalizedLink
          to={`${ROUTES.createCharacter}?edit=${encodeURIComponent(character.characterId)}`}
          className={buttonClassName({ variant: 'secondary', size: 'small' })}
          data-testid="my-character-edit"
        >
          <PencilIcon size={14} /> {t('myAi.actions.edit')}
        </LocalizedLink>
        <Button
          variant="secondary"
          size="small"
          onClick={onDuplicate}
          disabled={busy}
          data-testid="my-character-duplicate"
        >
          <CopyIcon size={14} /> {t('myAi.actions.duplicate')}
        </Button>
        <Button
          variant="secondary"
          size="small"
          onClick={onToggleVisibility}
          disabled={busy}
          data-testid="my-character-visibility"
        >
          {t(goingPublic ? 'myAi.actions.makePublic' : 'myAi.actions.makePrivate')}
        </Button>
        <Button
          variant="ghost"
          size="small"
          onClick={() => onExport('png')}
          disabled={busy}
          data-testid="my-character-export-png"
        >
          {t('myAi.actions.exportPng')}
        </Button>
        <Button
          variant="ghost"
          size="small"
          onClick={() => onExport('json')}
          disabled={busy}
          data-testid="my-character-export-json"
        >
          {t('myAi.actions.exportJson')}
        </Button>
        <Button
          variant="ghost"
          size="small"
          className={styles.danger}
          onClick={onDelete}
          disabled={busy}
          data-testid="my-character-delete"
        >
          <TrashIcon size={14} /> {t('myAi.actions.delete')}
        </Button>
      </div>
    </li>
  );
}

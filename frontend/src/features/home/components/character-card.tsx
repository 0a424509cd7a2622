import { useAtomValue } from 'jotai';
import { memo, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { userInfoAtom } from '@/app/store';
import { CardMenu } from '@/components/card-menu';
import { ChatIcon, LockIcon } from '@/components/icons';
import styles from '@/features/home/components/character-card.module.css';
import type { CharacterCard as CharacterCardData } from '@/lib/api-types';
import { fillPlaceholders } from '@/lib/placeholders';

export interface CharacterCardProps {
  character: CharacterCardData;
  /** The character's page (language prefix included): a real link crawlers follow and people open in a new tab. */
  href: string;
  /** A plain click: the app's own navigation (it keeps the list and scroll position first). */
  onOpen: (character: CharacterCardData) => void;
  /** The first cards of a page are above the fold: load them eagerly. */
  eager?: boolean;
}

/**
 * Name, age with the word 'year' (in the language's plural: "24 years"), introduction
 * (its `{{char}}` and `{{user}}` filled in), photo, the secondary image (first of the
 * image list) and a lock icon when usedType is 1 (spec section 2 "Home page"); a menu
 * with Report. The card is a link to the character's page (issue 34): a click with a
 * modifier key or the middle button opens it the browser's way, a plain click stays in the app.
 */
export const CharacterCard = memo(function CharacterCard({
  character,
  href,
  onOpen,
  eager = false,
}: CharacterCardProps) {
  const { t } = useTranslation();
  const userName = useAtomValue(userInfoAtom)?.userName || t('chat.you');
  const secondary = character.characterImageList?.[0];
  const locked = character.usedType === 1;
  return (
    <div className={styles.wrap}>
      <a
        href={href}
        className={styles.card}
        onClick={(event: MouseEvent<HTMLAnchorElement>) => {
          if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
          event.preventDefault();
          onOpen(character);
        }}
        aria-label={t('home.chatWith', { name: character.characterName })}
        data-testid="character-card"
        data-character-id={character.characterId}
      >
        <img
          className={styles.photo}
          src={character.characterPhoto}
          alt=""
          loading={eager ? 'eager' : 'lazy'}
          decoding="async"
        />
        {secondary && <img className={styles.secondary} src={secondary} alt="" loading="lazy" decoding="async" />}
        <span className={styles.shade} />
        {secondary && (
          <span className={styles.thumb} aria-hidden="true">
            <img src={secondary} alt="" loading="lazy" decoding="async" />
          </span>
        )}
        {locked && (
          <span className={styles.lock} title={t('home.locked')} data-testid="card-lock">
            <LockIcon size={16} />
            <span className="visually-hidden">{t('home.locked')}</span>
          </span>
        )}
        <span className={styles.info}>
          <span className={styles.name}>{character.characterName}</span>
          <span className={styles.age}>{t('home.age', { count: character.characterAge })}</span>
          <span className={styles.intro}>
            {fillPlaceholders(character.introduction, character.characterName, userName)}
          </span>
        </span>
        <span className={styles.chatHint} aria-hidden="true">
          <ChatIcon size={18} />
        </span>
      </a>
      {/* Beside the card, not in it: a link cannot hold a button. */}
      <CardMenu target={{ characterId: character.characterId, characterName: character.characterName }} />
    </div>
  );
});

export function CharacterCardSkeleton() {
  return <div className={styles.skeleton} aria-hidden="true" />;
}

import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { CheckIcon } from '@/components/icons';
import { Spinner } from '@/components/splash';
import styles from '@/features/groups/components/groups.module.css';
import { matching, type Pickable } from '@/features/groups/lib/pickable';

export interface CharacterPickerProps {
  characters: readonly Pickable[];
  loading: boolean;
  failed: boolean;
  onRetry: () => void;
  /** In the order picked (the seating order). */
  picked: readonly string[];
  /** No more may be picked. */
  full: boolean;
  onToggle: (character: Pickable) => void;
  /** Characters shown but not offered (already seated). */
  excluded?: ReadonlySet<string>;
}

/** A searchable grid of portraits to pick group members from; a picked one shows its seat number. */
export function CharacterPicker({
  characters,
  loading,
  failed,
  onRetry,
  picked,
  full,
  onToggle,
  excluded,
}: CharacterPickerProps) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const shown = matching(characters, query).filter((c) => !excluded?.has(c.characterId));
  return (
    <div className={styles.picker}>
      <input
        className={styles.field}
        type="search"
        value={query}
        placeholder={t('groups.searchCharacters')}
        aria-label={t('groups.searchCharacters')}
        onChange={(event) => setQuery(event.target.value)}
        data-testid="group-picker-search"
      />
      {loading && characters.length === 0 ? (
        <Spinner label={t('common.loading')} />
      ) : failed && characters.length === 0 ? (
        <div className={styles.pickerNote}>
          <p>{t('groups.charactersFailed')}</p>
          <Button variant="secondary" size="small" onClick={onRetry}>
            {t('home.retry')}
          </Button>
        </div>
      ) : shown.length === 0 ? (
        <p className={styles.pickerNote}>{t('groups.noCharacters')}</p>
      ) : (
        <ul className={styles.pickerGrid}>
          {shown.map((character) => {
            const seat = picked.indexOf(character.characterId);
            const on = seat >= 0;
            return (
              <li key={character.characterId}>
                <button
                  type="button"
                  className={`${styles.pickerItem} ${on ? styles.pickerOn : ''}`}
                  aria-pressed={on}
                  disabled={!on && full}
                  onClick={() => onToggle(character)}
                  data-testid="group-picker-item"
                  data-character-id={character.characterId}
                  data-character-name={character.characterName}
                >
                  <span className={styles.pickerPortrait}>
                    {character.characterPhoto && <img src={character.characterPhoto} alt="" loading="lazy" />}
                    {on && (
                      <span className={styles.pickerSeat} aria-hidden="true">
                        {seat + 1}
                      </span>
                    )}
                  </span>
                  <span className={styles.pickerName}>
                    {on && <CheckIcon size={12} aria-hidden="true" />}
                    {character.characterName}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

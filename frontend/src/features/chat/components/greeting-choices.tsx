import { useAtomValue } from 'jotai';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { userInfoAtom } from '@/app/store';
import styles from '@/features/chat/components/chat.module.css';
import { fillPlaceholders } from '@/lib/placeholders';

/** `{{char}}`, `{{user}}` and their legacy forms filled in, as the server does for the stored greeting. */
export const fillMacros = fillPlaceholders;

const PREVIEW_CHARS = 140;

/**
 * A character card's other first messages (`alternate_greetings`), offered while the
 * conversation holds only the greeting: picking one puts it in place of the first message.
 */
export function GreetingChoices({
  greeting,
  alternates,
  characterName,
  onChoose,
}: {
  greeting: string;
  alternates: string[];
  characterName: string;
  onChoose: (index: number) => Promise<boolean>;
}) {
  const { t } = useTranslation();
  const userName = useAtomValue(userInfoAtom)?.userName || t('chat.you');
  const [chosen, setChosen] = useState(0);
  const [busy, setBusy] = useState(false);
  const all = [greeting, ...alternates];
  const choose = async (index: number) => {
    if (busy || index === chosen) return;
    setBusy(true);
    try {
      if (await onChoose(index)) setChosen(index);
    } catch {
      // The connection notification has been shown.
    } finally {
      setBusy(false);
    }
  };
  return (
    <section
      className={styles.greetings}
      aria-label={t('chat.greetings.title', { name: characterName })}
      data-testid="greeting-choices"
    >
      <p className={styles.greetingsTitle}>{t('chat.greetings.title', { name: characterName })}</p>
      <div className={styles.greetingList}>
        {all.map((text, index) => {
          const filled = fillMacros(text, characterName, userName);
          return (
            <button
              key={index}
              type="button"
              className={styles.greetingOption}
              aria-pressed={index === chosen}
              disabled={busy}
              onClick={() => void choose(index)}
              title={filled}
              data-testid="greeting-choice"
              data-index={index}
            >
              <strong>{t('chat.greetings.option', { n: index + 1 })}</strong>
              <span>{filled.length > PREVIEW_CHARS ? `${filled.slice(0, PREVIEW_CHARS - 1)}…` : filled}</span>
            </button>
          );
        })}
      </div>
    </section>
  );
}

import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { PersonaForm } from '@/components/persona-form';
import { Spinner } from '@/components/splash';
import styles from '@/features/settings/components/settings-page.module.css';
import { useLoad } from '@/hooks/use-load';
import { getPersonaList, type UserPersona } from '@/lib/persona';

/**
 * Settings: the persona for every character (issue 18), the name characters call the user
 * and what they know of them. A character's own persona is set from its chat.
 */
export function PersonaSection({ accountName }: { accountName: string }) {
  const { t } = useTranslation('persona');
  const list = useLoad(
    () =>
      getPersonaList().then((envelope) => {
        if (!envelope.success) throw new Error('getPersonaList failed');
        return envelope.data;
      }),
    [],
  );
  const personas = list.data ?? null;
  const failed = list.error !== null;
  const load = list.reload;

  const everyone = personas?.find((p) => p.characterId === null) ?? null;
  const ownCount = personas?.filter((p) => p.characterId !== null).length ?? 0;
  const replace = (persona: UserPersona | null) =>
    list.setData((held) => [...(persona ? [persona] : []), ...(held ?? []).filter((p) => p.characterId !== null)]);

  return (
    <section className={styles.card} aria-labelledby="settings-persona" data-testid="settings-persona">
      <h2 id="settings-persona" className={styles.cardTitle}>
        {t('sectionTitle')}
      </h2>
      <p className={styles.muted}>{t('sectionText')}</p>
      {failed ? (
        <div>
          <p className={styles.muted}>{t('loadFailed')}</p>
          <Button variant="secondary" size="small" onClick={load}>
            {t('retry')}
          </Button>
        </div>
      ) : personas === null ? (
        <Spinner label={t('loading')} />
      ) : (
        <PersonaForm
          key={everyone ? 'stored' : 'none'}
          characterId={null}
          stored={everyone}
          suggestedName={accountName}
          onChange={replace}
          removeLabel={t('removeEveryone')}
          testId="persona-form"
        />
      )}
      <p className={styles.faint}>{ownCount > 0 ? t('ownCount', { count: ownCount }) : t('perCharacterHint')}</p>
    </section>
  );
}

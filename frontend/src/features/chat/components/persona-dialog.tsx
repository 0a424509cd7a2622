import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { userInfoAtom } from '@/app/store';
import { UserIcon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { PersonaForm } from '@/components/persona-form';
import { Spinner } from '@/components/splash';
import styles from '@/features/chat/components/persona-dialog.module.css';
import { useLoad } from '@/hooks/use-load';
import { getPersonaList, personaFor, type UserPersona } from '@/lib/persona';

export interface PersonaDialogProps {
  open: boolean;
  characterId: string;
  characterName: string;
  onClose: () => void;
}

/**
 * The chat screen's "your persona" (issue 18): who the user is to this one character. It
 * shows the persona that applies now and sets or removes one just for this character.
 */
export function PersonaDialog({ open, characterId, characterName, onClose }: PersonaDialogProps) {
  const { t } = useTranslation('persona');
  const { t: common } = useTranslation();
  const user = useAtomValue(userInfoAtom);
  // Asked again each time the dialog opens; the list holds every character's personas.
  const load = useLoad(
    () =>
      getPersonaList().then((envelope) => {
        if (!envelope.success) throw new Error('getPersonaList failed');
        return envelope.data;
      }),
    [],
    { enabled: open },
  );
  const personas = load.data ?? null;
  const failed = load.error !== null;

  const accountName = user?.userName ?? '';
  const mine = personas?.find((p) => p.characterId === characterId) ?? null;
  const everyone = personas?.find((p) => p.characterId === null) ?? null;
  const applies = personas ? personaFor(personas, characterId) : null;
  const now = mine
    ? t('usingOwn', { name: characterName, persona: mine.name })
    : everyone
      ? t('usingEveryone', { persona: everyone.name })
      : t('usingAccount', { persona: accountName });

  const replace = (persona: UserPersona | null) =>
    load.setData((list) => [
      ...(list ?? []).filter((p) => p.characterId !== characterId),
      ...(persona ? [persona] : []),
    ]);

  return (
    <Modal
      open={open}
      onClose={onClose}
      title={t('dialogTitle', { name: characterName })}
      closeLabel={common('common.close')}
      width={480}
      testId="persona-dialog"
    >
      <div className={styles.dialogBody}>
        <h2 className={styles.dialogTitle}>{t('dialogTitle', { name: characterName })}</h2>
        <p className={styles.muted}>{t('dialogText', { name: characterName })}</p>
        {failed ? (
          <p className={styles.muted}>{t('loadFailed')}</p>
        ) : personas === null ? (
          <Spinner label={t('loading')} />
        ) : (
          <>
            <p className={styles.current} data-testid="persona-current" data-persona={applies?.name ?? accountName}>
              {now}
            </p>
            <PersonaForm
              key={mine ? 'own' : 'none'}
              characterId={characterId}
              stored={mine}
              suggestedName={everyone?.name ?? accountName}
              onChange={replace}
              removeLabel={t('removeOwn')}
              testId="chat-persona-form"
            />
            <p className={styles.faint}>{t('greetingNote')}</p>
          </>
        )}
      </div>
    </Modal>
  );
}

/** The chat header's button that opens the dialog. */
export function PersonaButton({ className, onClick }: { className: string | undefined; onClick: () => void }) {
  const { t } = useTranslation('persona');
  return (
    <button
      type="button"
      className={className}
      onClick={onClick}
      aria-label={t('chatButton')}
      title={t('chatButton')}
      data-testid="chat-persona"
    >
      <UserIcon size={18} />
    </button>
  );
}

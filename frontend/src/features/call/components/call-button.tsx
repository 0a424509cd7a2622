/**
 * The "Call" button of a one-to-one chat's header (issue 32). The call screen, its hook, the
 * player and the microphone's worklet load only when it is pressed (a chunk of their own).
 */
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PhoneIcon } from '@/features/call/components/call-icons';
import styles from '@/features/call/components/call.module.css';

const CallScreen = lazy(() => import('@/features/call/components/call-screen'));

export interface CallTarget {
  characterId: string;
  characterName: string;
  characterPhoto: string;
  /** The conversation's free messages left today (null: paid, unlimited; undefined: not known yet). */
  creditsLeft?: number | null;
}

export function CallButton(target: CallTarget) {
  const { t } = useTranslation('call');
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className={styles.callButton}
        onClick={() => setOpen(true)}
        aria-label={t('callWith', { name: target.characterName })}
        title={t('callWith', { name: target.characterName })}
        data-testid="call-open"
      >
        <PhoneIcon size={18} />
        <span className={styles.callButtonLabel}>{t('call')}</span>
      </button>
      {open && (
        <Suspense fallback={null}>
          <CallScreen {...target} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  );
}

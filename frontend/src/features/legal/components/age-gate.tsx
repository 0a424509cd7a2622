import { Fragment, lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { LogoMark } from '@/components/logo-mark';
import { Modal } from '@/components/modal';
import styles from '@/features/legal/components/age-gate.module.css';
import { LINK_TAGS, parseTagged, type LegalDocKey } from '@/features/legal/lib/legal-docs';
import { AGE_GATE_EXIT_URL, confirmAge, MINIMUM_AGE } from '@/lib/age-gate';

// The texts load only when a visitor opens one.
const LegalDialog = lazy(() => import('@/features/legal/components/legal-dialog'));

const GATE_WIDTH = 480;

export interface AgeGateProps {
  /** Called after the confirmation is stored. */
  onConfirm: () => void;
  /** Settings asks with a way back (the switch stays off); the first-visit gate has none. */
  onCancel?: () => void;
}

/** Leaving is a full navigation away from the site. */
export function leaveSite(): void {
  window.location.assign(AGE_GATE_EXIT_URL);
}

/**
 * "Are you 18 or over?" Privacy policy, terms of use and community guidelines open as
 * dialogs stacked over it; confirming stores `eighteenTipShow`, declining leaves the site.
 */
export function AgeGate({ onConfirm, onCancel }: AgeGateProps) {
  const { t } = useTranslation();
  const [reading, setReading] = useState<LegalDocKey | null>(null);

  const agreement = parseTagged(t('ageGate.agreement')).map((part, index) => {
    const doc = 'tag' in part ? LINK_TAGS[part.tag] : undefined;
    if (!doc) return <Fragment key={index}>{part.text}</Fragment>;
    return (
      <button
        key={index}
        type="button"
        className={styles.docLink}
        onClick={() => setReading(doc)}
        data-testid={`age-gate-open-${doc}`}
      >
        {part.text}
      </button>
    );
  });

  return (
    <>
      <Modal
        open
        onClose={onCancel ?? (() => undefined)}
        dismissible={Boolean(onCancel)}
        title={t('ageGate.title')}
        closeLabel={t('common.close')}
        width={GATE_WIDTH}
        testId="age-gate"
      >
        <div className={styles.gate}>
          <div className={styles.badge} aria-hidden="true">
            <LogoMark size={40} />
            <span className={styles.age}>{MINIMUM_AGE}+</span>
          </div>
          <h2 className={styles.title}>{t('ageGate.title')}</h2>
          <p className={styles.lead}>{t('ageGate.lead')}</p>
          <p className={styles.question}>{t('ageGate.question')}</p>
          <div className={styles.actions}>
            <Button
              block
              className={styles.choice}
              onClick={() => {
                confirmAge();
                onConfirm();
              }}
              data-testid="age-gate-confirm"
            >
              {t('ageGate.confirm')}
            </Button>
            <Button
              block
              variant="secondary"
              className={styles.choice}
              onClick={leaveSite}
              data-testid="age-gate-decline"
            >
              {t('ageGate.decline')}
            </Button>
          </div>
          <p className={styles.agreement}>{agreement}</p>
        </div>
      </Modal>
      {reading && (
        <Suspense fallback={null}>
          <LegalDialog docKey={reading} onClose={() => setReading(null)} />
        </Suspense>
      )}
    </>
  );
}

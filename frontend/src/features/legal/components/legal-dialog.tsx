import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Modal } from '@/components/modal';
import { Spinner } from '@/components/splash';
import { LegalDocument } from '@/features/legal/components/legal-document';
import styles from '@/features/legal/components/legal-dialog.module.css';
import type { LegalDocKey } from '@/features/legal/lib/legal-docs';

const DIALOG_WIDTH = 720;
const SCREEN_MARGIN = 48;

/** A legal text in a dialog stacked over whatever asked for it (the age gate). */
export default function LegalDialog({ docKey, onClose }: { docKey: LegalDocKey; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal
      open
      onClose={onClose}
      title={t(`seo.${docKey}.title`)}
      closeLabel={t('common.close')}
      width={DIALOG_WIDTH}
      maxHeight={window.innerHeight - SCREEN_MARGIN}
      testId="legal-dialog"
    >
      <div className={styles.body}>
        <Suspense fallback={<Spinner label={t('common.loading')} />}>
          <LegalDocument docKey={docKey} inDialog />
        </Suspense>
      </div>
    </Modal>
  );
}

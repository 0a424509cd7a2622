import { useTranslation } from 'react-i18next';
import { Spinner } from '@/components/splash';
import styles from '@/features/create/components/create.module.css';
import type { PreviewState } from '@/features/create/hooks/use-portrait-preview';

/** The portrait the image pipeline draws from the chosen looks, beside every step. */
export function PortraitPreview({ state, name, age }: { state: PreviewState; name: string; age: number }) {
  const { t } = useTranslation('create');
  const image = state.status === 'ready' ? state.preview : state.status === 'idle' ? null : state.previous;
  return (
    <figure className={styles.preview} data-testid="portrait-preview" data-status={state.status}>
      <div className={styles.previewFrame}>
        {image ? (
          <img
            src={image.image}
            width={image.width}
            height={image.height}
            alt={t('preview.alt', { name: name || t('preview.unnamed') })}
            data-testid="portrait-image"
          />
        ) : (
          // While the first drawing is on its way the spinner says enough.
          state.status !== 'loading' && <span className={styles.previewEmpty}>{t('preview.empty')}</span>
        )}
        {state.status === 'loading' && (
          <span className={styles.previewBusy}>
            <Spinner label={t('preview.drawing')} />
          </span>
        )}
      </div>
      <figcaption className={styles.previewCaption}>
        <strong data-testid="preview-name">{name.trim() || t('preview.unnamed')}</strong>
        {age > 0 && <span>{t('preview.age', { age })}</span>}
        {state.status === 'failed' && <span className={styles.fieldError}>{t('preview.failed')}</span>}
      </figcaption>
    </figure>
  );
}

import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { Modal } from '@/components/modal';
import { DEFAULT_LIMITS } from '@/features/create/api/create-api';
import styles from '@/features/create/components/create.module.css';

/** Character cards carry no age: asked for when the server says the card gives none. */
export function AgeDialog({
  open,
  busy,
  onClose,
  onSubmit,
}: {
  open: boolean;
  busy: boolean;
  onClose: () => void;
  onSubmit: (age: number) => Promise<void>;
}) {
  const { t } = useTranslation('create');
  const { t: tApp } = useTranslation();
  const [value, setValue] = useState('');
  const [error, setError] = useState(false);
  // Each opening starts blank, from the render that opens it.
  const [wasOpen, setWasOpen] = useState(open);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) {
      setValue('');
      setError(false);
    }
  }
  const { ageMin, ageMax } = DEFAULT_LIMITS;
  const submit = () => {
    const age = Number(value);
    if (!Number.isInteger(age) || age < ageMin || age > ageMax) {
      setError(true);
      return;
    }
    void onSubmit(age);
  };
  return (
    <Modal
      open={open}
      onClose={onClose}
      title={t('myAi.ageTitle')}
      closeLabel={tApp('common.close')}
      width={400}
      testId="import-age-dialog"
    >
      <form
        className={styles.dialog}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <h2>{t('myAi.ageTitle')}</h2>
        <p className={styles.hint}>{t('myAi.ageText', { min: ageMin })}</p>
        <label className={styles.group}>
          <span className={styles.groupLabel}>{t('looks.age')}</span>
          <input
            className={styles.input}
            type="number"
            min={ageMin}
            max={ageMax}
            value={value}
            autoFocus
            onChange={(event) => {
              setValue(event.target.value);
              setError(false);
            }}
            aria-invalid={error ? true : undefined}
            data-testid="import-age-input"
          />
        </label>
        {error && (
          <p className={styles.fieldError} role="alert">
            {t('errors.age', { min: ageMin, max: ageMax })}
          </p>
        )}
        <div className={styles.dialogActions}>
          <Button variant="secondary" size="small" onClick={onClose} disabled={busy}>
            {t('myAi.cancel')}
          </Button>
          <Button type="submit" size="small" disabled={busy} data-testid="import-age-submit">
            {t('myAi.ageSubmit')}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

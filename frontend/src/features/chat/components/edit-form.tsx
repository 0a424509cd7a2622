import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import styles from '@/features/chat/components/chat.module.css';

export interface EditFormProps {
  className?: string;
  value: string;
  maxLength: number;
  /** The field's accessible name. */
  label: string;
  error: string | null;
  busy: boolean;
  onChange: (value: string) => void;
  onCancel: () => void;
  onSubmit: () => void;
  /** Shown before the save button's text. */
  saveIcon?: ReactNode;
}

/** Editing a text in place (a message of the user's, a memory): Escape or Cancel leaves it. */
export function EditForm({
  className,
  value,
  maxLength,
  label,
  error,
  busy,
  onChange,
  onCancel,
  onSubmit,
  saveIcon,
}: EditFormProps) {
  const { t } = useTranslation();
  return (
    <form
      className={className}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      <textarea
        className={styles.editInput}
        value={value}
        maxLength={maxLength}
        rows={3}
        autoFocus
        aria-label={label}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onCancel();
        }}
      />
      {error && (
        <p className={styles.fieldError} role="alert">
          {error}
        </p>
      )}
      <div className={styles.editActions}>
        <button type="button" className={styles.textButton} onClick={onCancel}>
          {t('chat.cancel')}
        </button>
        <button type="submit" className={styles.smallPrimary} disabled={busy || !value.trim()}>
          {saveIcon}
          {t('chat.save')}
        </button>
      </div>
    </form>
  );
}

import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { LocalizedLink } from '@/components/localized-link';
import { Modal } from '@/components/modal';
import styles from '@/components/report-dialog.module.css';
import { ApiCode } from '@/lib/api-types';
import { notify } from '@/lib/notifications';
import {
  REPORT_NOTE_MAX_CHARS,
  REPORT_REASONS,
  type ReportReason,
  type ReportTarget,
  reportContent,
} from '@/lib/report-api';
import { ROUTES } from '@/lib/routes';

export interface ReportDialogProps {
  /** What is being reported; `null` keeps the dialog closed. */
  target: ReportTarget | null;
  onClose: () => void;
}

/**
 * Report a character, one of its replies or a public feed image: a reason from the community
 * guidelines and an optional note (required for "something else"). The operator reviews reports.
 */
export function ReportDialog({ target, onClose }: ReportDialogProps) {
  const { t } = useTranslation();
  const noteId = useId();
  const [reason, setReason] = useState<ReportReason | null>(null);
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  // Every report starts blank: a new target resets the form in the render that shows it.
  const [formFor, setFormFor] = useState(target);
  if (formFor !== target) {
    setFormFor(target);
    if (target) {
      setReason(null);
      setNote('');
      setError(null);
    }
  }

  if (!target) return null;
  const noteNeeded = reason === 'other' && note.trim() === '';
  let title;
  if ('feedId' in target) title = t('report.imageTitle');
  else if (target.messageId) title = t('report.replyTitle', { name: target.characterName });
  else title = t('report.title', { name: target.characterName });

  const submit = async () => {
    if (!reason || busy) return;
    if (noteNeeded) {
      setError(t('report.noteRequired'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const envelope = await reportContent(target, reason, note.trim());
      if (envelope.success) {
        notify.success(t('report.sent'));
        onClose();
      } else if (envelope.code === ApiCode.rateLimited) setError(t('report.tooMany'));
      else if (envelope.code === ApiCode.notFound) setError(t('report.gone'));
      else setError(t('report.failed'));
    } catch {
      // The connection notification has been shown; the form stays as it was.
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal open onClose={onClose} title={title} closeLabel={t('common.close')} width={460} testId="report-dialog">
      <form
        className={styles.form}
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <h2 className={styles.title}>{title}</h2>
        <p className={styles.intro}>
          {t('report.intro')}{' '}
          <LocalizedLink to={ROUTES.communityGuidelines} className={styles.link} onClick={onClose}>
            {t('report.guidelines')}
          </LocalizedLink>
        </p>
        <fieldset className={styles.reasons}>
          <legend className="visually-hidden">{t('report.reasonLabel')}</legend>
          {REPORT_REASONS.map((code) => (
            <label key={code} className={`${styles.reason} ${reason === code ? styles.chosen : ''}`}>
              <input
                type="radio"
                name="report-reason"
                value={code}
                checked={reason === code}
                onChange={() => setReason(code)}
                data-testid={`report-reason-${code}`}
              />
              <span>{t(`report.reasons.${code}`)}</span>
            </label>
          ))}
        </fieldset>
        <label className={styles.noteLabel} htmlFor={noteId}>
          {reason === 'other' ? t('report.noteLabelRequired') : t('report.noteLabel')}
        </label>
        <textarea
          id={noteId}
          className={styles.note}
          value={note}
          maxLength={REPORT_NOTE_MAX_CHARS}
          rows={3}
          placeholder={t('report.notePlaceholder')}
          onChange={(event) => setNote(event.target.value)}
          data-testid="report-note"
        />
        {error && (
          <p className={styles.error} role="alert">
            {error}
          </p>
        )}
        <div className={styles.actions}>
          <Button variant="secondary" size="small" onClick={onClose} disabled={busy}>
            {t('chat.cancel')}
          </Button>
          <Button type="submit" size="small" disabled={!reason || busy} data-testid="report-submit">
            {t('report.submit')}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

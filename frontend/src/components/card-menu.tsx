import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styles from '@/components/card-menu.module.css';
import { FlagIcon, MoreIcon } from '@/components/moderation-icons';
import { ReportDialog } from '@/components/report-dialog';
import { useRequireLogin } from '@/hooks/use-require-login';
import type { CharacterReportTarget } from '@/lib/report-api';

/** The "more" menu on a character card: Report (signed in; otherwise the login prompt). */
export function CardMenu({ target }: { target: CharacterReportTarget }) {
  const { t } = useTranslation();
  const requireLogin = useRequireLogin();
  const [open, setOpen] = useState(false);
  const [reporting, setReporting] = useState(false);
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const close = (event: MouseEvent | KeyboardEvent) => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !root.current?.contains(event.target as Node))
        setOpen(false);
    };
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);

  return (
    <div className={styles.root} ref={root}>
      <button
        type="button"
        className={styles.trigger}
        aria-label={t('report.moreActions', { name: target.characterName })}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="card-menu"
      >
        <MoreIcon size={18} />
      </button>
      {open && (
        <div className={styles.menu} role="menu">
          <button
            type="button"
            role="menuitem"
            className={styles.item}
            onClick={() => {
              setOpen(false);
              if (requireLogin()) setReporting(true);
            }}
            data-testid="card-report"
          >
            <FlagIcon size={16} />
            {t('report.reportCharacter')}
          </button>
        </div>
      )}
      <ReportDialog target={reporting ? target : null} onClose={() => setReporting(false)} />
    </div>
  );
}

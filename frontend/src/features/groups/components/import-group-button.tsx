import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ImportGroupDialog } from '@/features/groups/components/import-group-dialog';
import styles from '@/features/groups/components/groups.module.css';
import type { Group } from '@/lib/api-types';

/** The chat list's "Import" button (a SillyTavern group chat export), and the dialog it opens. */
export function ImportGroupButton({ onImported }: { onImported: (group: Group) => void }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className={styles.newGroup}
        onClick={() => setOpen(true)}
        title={t('groups.import.title')}
        data-testid="import-group"
      >
        {t('groups.import.button')}
      </button>
      <ImportGroupDialog
        open={open}
        onClose={() => setOpen(false)}
        onImported={(group) => {
          setOpen(false);
          onImported(group);
        }}
      />
    </>
  );
}

import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PlusIcon } from '@/components/icons';
import { CreateGroupDialog } from '@/features/groups/components/create-group-dialog';
import styles from '@/features/groups/components/groups.module.css';
import { ImportGroupDialog } from '@/features/groups/components/import-group-dialog';
import type { Group } from '@/lib/api-types';

/**
 * The chat list's "New group" button and the dialog it opens, from which a SillyTavern group
 * chat export can be imported instead (a dialog of its own). Either opens the group it made.
 */
export function NewGroupButton({ onMade }: { onMade: (group: Group) => void }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState<'create' | 'import' | null>(null);
  const made = (group: Group) => {
    setOpen(null);
    onMade(group);
  };
  return (
    <>
      <button type="button" className={styles.newGroup} onClick={() => setOpen('create')} data-testid="new-group">
        <PlusIcon size={15} />
        {t('groups.newGroup')}
      </button>
      <CreateGroupDialog
        open={open === 'create'}
        onClose={() => setOpen(null)}
        onCreated={made}
        onImportInstead={() => setOpen('import')}
      />
      <ImportGroupDialog open={open === 'import'} onClose={() => setOpen(null)} onImported={made} />
    </>
  );
}

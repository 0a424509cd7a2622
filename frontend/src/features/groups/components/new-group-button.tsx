import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PlusIcon } from '@/components/icons';
import { CreateGroupDialog } from '@/features/groups/components/create-group-dialog';
import styles from '@/features/groups/components/groups.module.css';
import type { Group } from '@/lib/api-types';

/** The chat list's "New group" button, and the dialog it opens. */
export function NewGroupButton({ onCreated }: { onCreated: (group: Group) => void }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={styles.newGroup} onClick={() => setOpen(true)} data-testid="new-group">
        <PlusIcon size={15} />
        {t('groups.newGroup')}
      </button>
      <CreateGroupDialog
        open={open}
        onClose={() => setOpen(false)}
        onCreated={(group) => {
          setOpen(false);
          onCreated(group);
        }}
      />
    </>
  );
}

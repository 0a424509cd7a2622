import { ImportGroupButton } from '@/features/groups/components/import-group-button';
import { NewGroupButton } from '@/features/groups/components/new-group-button';
import styles from '@/features/groups/components/groups.module.css';
import type { Group } from '@/lib/api-types';

/** The chat list's group buttons: "New group" and "Import"; either opens the group it made. */
export function GroupListActions({ onMade }: { onMade: (group: Group) => void }) {
  return (
    <div className={styles.listActions}>
      <NewGroupButton onCreated={onMade} />
      <ImportGroupButton onImported={onMade} />
    </div>
  );
}

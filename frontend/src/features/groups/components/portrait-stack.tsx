import styles from '@/features/groups/components/groups.module.css';
import type { GroupMember } from '@/lib/api-types';

/** How many portraits overlap before the rest is counted ("+2"). */
const SHOWN = 3;

/** The members' portraits, overlapping, in seating order: a group's picture in the list and its header. */
export function PortraitStack({ members, size }: { members: readonly GroupMember[]; size: 'list' | 'header' }) {
  const shown = members.slice(0, SHOWN);
  const more = members.length - shown.length;
  return (
    <span className={`${styles.stack} ${size === 'header' ? styles.stackHeader : styles.stackList}`} aria-hidden="true">
      {shown.map((member) => (
        <span key={member.characterId} className={styles.stackPortrait}>
          {member.characterPhoto ? (
            <img src={member.characterPhoto} alt="" loading="lazy" />
          ) : (
            (member.characterName || '?').slice(0, 1)
          )}
        </span>
      ))}
      {more > 0 && <span className={`${styles.stackPortrait} ${styles.stackMore}`}>+{more}</span>}
    </span>
  );
}

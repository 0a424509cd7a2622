import { FemaleIcon, MaleIcon } from '@/components/icons';
import styles from '@/components/gender-switch.module.css';
import { Gender, type GenderValue } from '@/lib/api-types';

export interface GenderSwitchProps {
  value: GenderValue;
  onChange: (gender: GenderValue) => void;
  labels: { group: string; girls: string; guys: string };
  /** Distance between the two tabs' centres: 120 px in the header, 160 px on a page (spec section 9). */
  spacing: 120 | 160;
  testId?: string;
}

/** The two-option interested-gender switch: Girls = 0, Guys = 1. */
export function GenderSwitch({ value, onChange, labels, spacing, testId }: GenderSwitchProps) {
  const options = [
    { gender: Gender.girls, label: labels.girls, Icon: FemaleIcon },
    { gender: Gender.guys, label: labels.guys, Icon: MaleIcon },
  ] as const;
  return (
    <div
      role="tablist"
      aria-label={labels.group}
      className={`${styles.switch} ${spacing === 160 ? styles.large : ''}`}
      data-testid={testId}
    >
      <span
        className={styles.indicator}
        style={{ width: spacing, transform: `translateX(${value === Gender.guys ? spacing : 0}px)` }}
        aria-hidden="true"
      />
      {options.map(({ gender, label, Icon }) => (
        <button
          key={gender}
          type="button"
          role="tab"
          aria-selected={value === gender}
          className={`${styles.tab} ${value === gender ? styles.active : ''}`}
          style={{ width: spacing }}
          onClick={() => value !== gender && onChange(gender)}
        >
          <Icon size={16} />
          {label}
        </button>
      ))}
    </div>
  );
}

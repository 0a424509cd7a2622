/** The builder's form pieces: a preset chip group, a counted text box, a field's message. */
import { useTranslation } from 'react-i18next';
import type { Preset, PresetGroup } from '@/features/create/api/create-api';
import styles from '@/features/create/components/create.module.css';
import type { FieldError, FieldId } from '@/features/create/lib/steps';

/** "dark_brown" → "Dark brown": how a key the translations do not know yet is shown. */
export function humanizeKey(key: string): string {
  const words = key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function usePresetLabel() {
  const { t } = useTranslation('create');
  return (group: PresetGroup, key: string) =>
    t(`presets.${group}.${key}` as 'presets.styles.realistic', { defaultValue: humanizeKey(key) });
}

/** What the form shows under a field: the server's words for a refusal, else the rule broken. */
export type ShownError = FieldError | { server: string };

export function FieldMessage({ field, error }: { field: FieldId; error: ShownError | undefined }) {
  const { t } = useTranslation('create');
  if (!error) return null;
  const text = 'server' in error ? error.server : t(`errors.${error.key}`, error.values ?? {});
  return (
    <p className={styles.fieldError} role="alert" data-testid="field-error" data-field={field}>
      {text}
    </p>
  );
}

export function ChipGroup({
  field,
  group,
  label,
  presets,
  value,
  onChange,
  error,
}: {
  field: FieldId;
  group: PresetGroup;
  label: string;
  presets: Preset[];
  value: string;
  onChange: (key: string) => void;
  error: ShownError | undefined;
}) {
  const presetLabel = usePresetLabel();
  return (
    <fieldset className={styles.group} data-field={field} aria-invalid={error ? true : undefined}>
      <legend className={styles.groupLabel}>{label}</legend>
      <div className={styles.chips} role="radiogroup" aria-label={label}>
        {presets.map((preset) => (
          <button
            key={preset.key}
            type="button"
            role="radio"
            aria-checked={value === preset.key}
            className={styles.chip}
            onClick={() => onChange(preset.key)}
            data-testid="preset-chip"
            data-group={group}
            data-key={preset.key}
          >
            {presetLabel(group, preset.key)}
          </button>
        ))}
      </div>
      <FieldMessage field={field} error={error} />
    </fieldset>
  );
}

export function TextField({
  field,
  label,
  value,
  max,
  onChange,
  error,
  placeholder,
  multiline = false,
  hint,
}: {
  field: FieldId;
  label: string;
  value: string;
  max: number;
  onChange: (value: string) => void;
  error: ShownError | undefined;
  placeholder?: string;
  multiline?: boolean;
  hint?: string;
}) {
  const { t } = useTranslation('create');
  const props = {
    className: multiline ? styles.textarea : styles.input,
    value,
    placeholder,
    onChange: (event: { target: { value: string } }) => onChange(event.target.value),
    'aria-invalid': error ? true : undefined,
    'data-testid': `field-${field}`,
  };
  return (
    <label className={styles.group} data-field={field}>
      <span className={styles.groupLabel}>{label}</span>
      {multiline ? <textarea {...props} rows={4} /> : <input {...props} type="text" />}
      <span className={styles.fieldFoot}>
        {hint && <span className={styles.hint}>{hint}</span>}
        <span className={`${styles.counter} ${value.length > max ? styles.counterOver : ''}`}>
          {t('count', { length: value.length, max })}
        </span>
      </span>
      <FieldMessage field={field} error={error} />
    </label>
  );
}

import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { NAME_MAX_CHARS, SCENARIO_MAX_CHARS, TALK_CAP_MAX, TALK_CAP_MIN } from '@/features/groups/api/groups-api';
import styles from '@/features/groups/components/groups.module.css';
import type { GroupField } from '@/features/groups/lib/field-errors';
import type { GroupActivation } from '@/lib/api-types';

export interface GroupSettings {
  name: string;
  scenario: string;
  activation: GroupActivation;
  talkCap: number;
  allowSelfResponses: boolean;
}

export const ACTIVATIONS: readonly GroupActivation[] = ['natural', 'list', 'manual'];

export interface GroupSettingsFieldsProps {
  value: GroupSettings;
  onChange: (value: GroupSettings) => void;
  /** The field a refusal named, and what to say under it. */
  error: { field: GroupField; text: string } | null;
}

/** A group's name, scenario, order, "let them talk" cap and self responses, as a form's fields. */
export function GroupSettingsFields({ value, onChange, error }: GroupSettingsFieldsProps) {
  const { t } = useTranslation();
  const id = useId();
  const set = <K extends keyof GroupSettings>(key: K, next: GroupSettings[K]) => onChange({ ...value, [key]: next });
  const errorOf = (field: GroupField) =>
    error?.field === field ? (
      <p className={styles.fieldError} role="alert" data-testid={`group-error-${field}`}>
        {error.text}
      </p>
    ) : null;
  return (
    <>
      <label className={styles.label} htmlFor={`${id}-name`}>
        {t('groups.name')}
      </label>
      <input
        id={`${id}-name`}
        className={styles.field}
        value={value.name}
        maxLength={NAME_MAX_CHARS}
        placeholder={t('groups.namePlaceholder')}
        aria-invalid={error?.field === 'name'}
        onChange={(event) => set('name', event.target.value)}
        data-testid="group-name-input"
      />
      {errorOf('name')}
      <label className={styles.label} htmlFor={`${id}-scenario`}>
        {t('groups.scenario')}
      </label>
      <textarea
        id={`${id}-scenario`}
        className={`${styles.field} ${styles.textarea}`}
        value={value.scenario}
        rows={3}
        maxLength={SCENARIO_MAX_CHARS}
        placeholder={t('groups.scenarioPlaceholder')}
        aria-invalid={error?.field === 'scenario'}
        onChange={(event) => set('scenario', event.target.value)}
        data-testid="group-scenario-input"
      />
      {errorOf('scenario')}
      <fieldset className={styles.fieldset}>
        <legend className={styles.label}>{t('groups.order')}</legend>
        <div className={styles.segmented} role="radiogroup">
          {ACTIVATIONS.map((activation) => (
            <label
              key={activation}
              className={`${styles.segment} ${value.activation === activation ? styles.segmentOn : ''}`}
            >
              <input
                type="radio"
                name={`${id}-activation`}
                value={activation}
                checked={value.activation === activation}
                onChange={() => set('activation', activation)}
                data-testid={`group-activation-${activation}`}
              />
              {t(`groups.activation.${activation}`)}
            </label>
          ))}
        </div>
        <p className={styles.hint}>{t(`groups.activationHint.${value.activation}`)}</p>
      </fieldset>
      <div className={styles.row2}>
        <label className={styles.label} htmlFor={`${id}-cap`}>
          {t('groups.talkCap')}
        </label>
        <input
          id={`${id}-cap`}
          className={`${styles.field} ${styles.number}`}
          type="number"
          min={TALK_CAP_MIN}
          max={TALK_CAP_MAX}
          value={value.talkCap}
          aria-invalid={error?.field === 'talkCap'}
          onChange={(event) => set('talkCap', Number(event.target.value))}
          data-testid="group-talk-cap-input"
        />
      </div>
      <p className={styles.hint}>{t('groups.talkCapHint')}</p>
      {errorOf('talkCap')}
      <label className={styles.check}>
        <input
          type="checkbox"
          checked={value.allowSelfResponses}
          onChange={(event) => set('allowSelfResponses', event.target.checked)}
          data-testid="group-self-responses"
        />
        {t('groups.allowSelfResponses')}
      </label>
      {errorOf('other')}
    </>
  );
}

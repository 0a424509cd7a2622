/** The content of each builder step; the builder owns the draft and hands each step its part. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { GenderSwitch } from '@/components/gender-switch';
import { CloseIcon } from '@/components/icons';
import type { CreateOptions, Draft } from '@/features/create/api/create-api';
import styles from '@/features/create/components/create.module.css';
import { ChipGroup, FieldMessage, TextField, type ShownError } from '@/features/create/components/fields';
import { isStyle, LOOKS_GROUPS } from '@/features/create/lib/draft';
import { isValidTag, type FieldId } from '@/features/create/lib/steps';
import type { GenderValue } from '@/lib/api-types';

export interface StepProps {
  draft: Draft;
  options: CreateOptions;
  update: (change: (draft: Draft) => Draft) => void;
  errors: Partial<Record<FieldId, ShownError>>;
}

/** Style, and on phones (where the header has no switch) girlfriend or boyfriend. */
export function StyleStep({
  draft,
  options,
  update,
  errors,
  genderSwitch,
}: StepProps & { genderSwitch: { value: GenderValue; onChange: (g: GenderValue) => void } | null }) {
  const { t } = useTranslation('create');
  return (
    <>
      {genderSwitch && (
        <div className={styles.group}>
          <span className={styles.groupLabel}>{t('gender.label')}</span>
          <GenderSwitch
            value={genderSwitch.value}
            onChange={genderSwitch.onChange}
            spacing={160}
            labels={{ group: t('gender.label'), girls: t('gender.girlfriend'), guys: t('gender.boyfriend') }}
            testId="builder-gender-switch"
          />
        </div>
      )}
      <ChipGroup
        field="style"
        group="styles"
        label={t('style.label')}
        presets={options.styles}
        value={draft.style}
        onChange={(style) => update((d) => ({ ...d, style: isStyle(style) ? style : d.style }))}
        error={errors.style}
      />
      <p className={styles.hint}>{t('style.hint')}</p>
    </>
  );
}

const LOOKS_LABEL = {
  ethnicity: 'looks.ethnicity',
  eyes: 'looks.eyes',
  hairColor: 'looks.hairColor',
  hairStyle: 'looks.hairStyle',
  body: 'looks.body',
  outfit: 'looks.outfit',
} as const;

export function LooksStep({ draft, options, update, errors }: StepProps) {
  const { t } = useTranslation('create');
  const { ageMin, ageMax } = options.limits;
  const setAge = (value: string) => {
    const age = Number.parseInt(value, 10);
    update((d) => ({ ...d, looks: { ...d.looks, age: Number.isNaN(age) ? 0 : age } }));
  };
  return (
    <>
      <div className={styles.group} data-field="looks.age">
        <label className={styles.groupLabel} htmlFor="builder-age">
          {t('looks.age')}
        </label>
        <div className={styles.ageRow}>
          <input
            type="range"
            min={ageMin}
            max={ageMax}
            value={Math.min(Math.max(draft.looks.age, ageMin), ageMax)}
            onChange={(event) => setAge(event.target.value)}
            aria-label={t('looks.age')}
            className={styles.slider}
            data-testid="age-slider"
          />
          <input
            id="builder-age"
            type="number"
            min={ageMin}
            max={ageMax}
            value={draft.looks.age || ''}
            onChange={(event) => setAge(event.target.value)}
            className={styles.ageNumber}
            aria-invalid={errors['looks.age'] ? true : undefined}
            data-testid="field-looks.age"
          />
        </div>
        <span className={styles.hint}>{t('looks.ageHint', { min: ageMin })}</span>
        <FieldMessage field="looks.age" error={errors['looks.age']} />
      </div>
      {LOOKS_GROUPS.map(([field, group]) => (
        <ChipGroup
          key={field}
          field={`looks.${field}`}
          group={group}
          label={t(LOOKS_LABEL[field])}
          presets={options[group]}
          value={draft.looks[field]}
          onChange={(key) => update((d) => ({ ...d, looks: { ...d.looks, [field]: key } }))}
          error={errors[`looks.${field}`]}
        />
      ))}
    </>
  );
}

export function PersonalityStep({ draft, options, update, errors }: StepProps) {
  const { t } = useTranslation('create');
  const max = options.limits.textMax;
  return (
    <>
      <ChipGroup
        field="personality.preset"
        group="personalities"
        label={t('personality.label')}
        presets={options.personalities}
        value={draft.personality.preset}
        onChange={(preset) => update((d) => ({ ...d, personality: { ...d.personality, preset } }))}
        error={errors['personality.preset']}
      />
      <TextField
        field="personality.text"
        label={t('personality.textLabel')}
        value={draft.personality.text}
        max={max}
        multiline
        placeholder={t('personality.textPlaceholder')}
        onChange={(text) => update((d) => ({ ...d, personality: { ...d.personality, text } }))}
        error={errors['personality.text']}
      />
      <ChipGroup
        field="relationship.preset"
        group="relationships"
        label={t('personality.relationship')}
        presets={options.relationships}
        value={draft.relationship.preset}
        onChange={(preset) => update((d) => ({ ...d, relationship: { ...d.relationship, preset } }))}
        error={errors['relationship.preset']}
      />
      <TextField
        field="relationship.text"
        label={t('personality.relationshipTextLabel')}
        value={draft.relationship.text}
        max={max}
        multiline
        placeholder={t('personality.relationshipPlaceholder')}
        onChange={(text) => update((d) => ({ ...d, relationship: { ...d.relationship, text } }))}
        error={errors['relationship.text']}
      />
    </>
  );
}

export function VoiceStep({ draft, options, update, errors }: StepProps) {
  const { t } = useTranslation('create');
  const voices = options.voices.filter((voice) => voice.gender === draft.gender);
  return (
    <fieldset className={styles.group} data-field="voiceId">
      <legend className={styles.groupLabel}>{t('voice.label')}</legend>
      {voices.length === 0 ? (
        <p className={styles.hint}>{t('voice.none')}</p>
      ) : (
        <div className={styles.voices} role="radiogroup" aria-label={t('voice.label')}>
          {voices.map((voice) => (
            <button
              key={voice.voiceId}
              type="button"
              role="radio"
              aria-checked={draft.voiceId === voice.voiceId}
              className={styles.voice}
              onClick={() => update((d) => ({ ...d, voiceId: voice.voiceId }))}
              data-testid="voice-option"
              data-voice-id={voice.voiceId}
            >
              {voice.label}
            </button>
          ))}
        </div>
      )}
      <p className={styles.hint}>{t('voice.hint')}</p>
      <FieldMessage field="voiceId" error={errors.voiceId} />
    </fieldset>
  );
}

function TagsField({ draft, options, update, errors }: StepProps) {
  const { t } = useTranslation('create');
  const [input, setInput] = useState('');
  const add = () => {
    const tag = input.trim();
    if (!tag || !isValidTag(tag)) return;
    update((d) => (d.tags.some((x) => x.toLowerCase() === tag.toLowerCase()) ? d : { ...d, tags: [...d.tags, tag] }));
    setInput('');
  };
  const full = draft.tags.length >= options.limits.tagsMax;
  return (
    <div className={styles.group} data-field="tags">
      <label className={styles.groupLabel} htmlFor="builder-tag">
        {t('story.tags')}
      </label>
      {draft.tags.length > 0 && (
        <ul className={styles.tags}>
          {draft.tags.map((tag) => (
            <li key={tag} className={styles.tag} data-testid="tag">
              {tag}
              <button
                type="button"
                onClick={() => update((d) => ({ ...d, tags: d.tags.filter((x) => x !== tag) }))}
                aria-label={t('story.removeTag', { tag })}
              >
                <CloseIcon size={12} />
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className={styles.tagRow}>
        <input
          id="builder-tag"
          className={styles.input}
          value={input}
          maxLength={30}
          disabled={full}
          placeholder={t('story.tagsPlaceholder', { max: options.limits.tagsMax })}
          onChange={(event) => setInput(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' || event.key === ',') {
              event.preventDefault();
              add();
            }
          }}
          data-testid="tag-input"
        />
        <Button
          variant="secondary"
          size="small"
          onClick={add}
          disabled={full || !isValidTag(input)}
          data-testid="tag-add"
        >
          {t('story.addTag')}
        </Button>
      </div>
      {input.trim() !== '' && !isValidTag(input) && <p className={styles.hint}>{t('errors.tagInvalid')}</p>}
      <FieldMessage field="tags" error={errors.tags} />
    </div>
  );
}

export function StoryStep(props: StepProps) {
  const { t } = useTranslation('create');
  const { draft, options, update, errors } = props;
  const { limits } = options;
  return (
    <>
      <TextField
        field="characterName"
        label={t('story.name')}
        value={draft.characterName}
        max={limits.nameMax}
        placeholder={t('story.namePlaceholder')}
        onChange={(characterName) => update((d) => ({ ...d, characterName }))}
        error={errors.characterName}
      />
      <TextField
        field="introduction"
        label={t('story.introduction')}
        value={draft.introduction}
        max={limits.introductionMax}
        multiline
        placeholder={t('story.introductionPlaceholder')}
        onChange={(introduction) => update((d) => ({ ...d, introduction }))}
        error={errors.introduction}
      />
      <TextField
        field="greeting"
        label={t('story.greeting')}
        value={draft.greeting}
        max={limits.greetingMax}
        multiline
        placeholder={t('story.greetingPlaceholder')}
        hint={t('story.greetingHint', { user: '{{user}}' })}
        onChange={(greeting) => update((d) => ({ ...d, greeting }))}
        error={errors.greeting}
      />
      <TextField
        field="scenario"
        label={t('story.scenario')}
        value={draft.scenario}
        max={limits.scenarioMax}
        multiline
        placeholder={t('story.scenarioPlaceholder')}
        onChange={(scenario) => update((d) => ({ ...d, scenario }))}
        error={errors.scenario}
      />
      <TagsField {...props} />
    </>
  );
}

export function PublishStep({ draft, update, errors, adultContent }: StepProps & { adultContent: boolean }) {
  const { t } = useTranslation('create');
  return (
    <>
      {adultContent ? (
        <label className={styles.toggleRow} data-field="nsfw">
          <input
            type="checkbox"
            checked={draft.nsfw}
            onChange={(event) => update((d) => ({ ...d, nsfw: event.target.checked }))}
            data-testid="field-nsfw"
          />
          <span>
            <strong>{t('publish.nsfw')}</strong>
            <span className={styles.hint}>{t('publish.nsfwHint')}</span>
          </span>
        </label>
      ) : (
        <p className={styles.hint} data-testid="nsfw-off-note">
          {t('publish.nsfwOff')}
        </p>
      )}
      <fieldset className={styles.group} data-field="visibility">
        <legend className={styles.groupLabel}>{t('publish.visibility')}</legend>
        {(['private', 'public'] as const).map((visibility) => (
          <label key={visibility} className={styles.radioRow}>
            <input
              type="radio"
              name="visibility"
              checked={draft.visibility === visibility}
              onChange={() => update((d) => ({ ...d, visibility }))}
              data-testid={`visibility-${visibility}`}
            />
            <span>
              <strong>{t(`publish.${visibility}`)}</strong>
              <span className={styles.hint}>{t(`publish.${visibility}Hint`)}</span>
            </span>
          </label>
        ))}
        <FieldMessage field="visibility" error={errors.visibility} />
      </fieldset>
    </>
  );
}

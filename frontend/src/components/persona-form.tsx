import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import {
  deletePersona,
  PERSONA_DESCRIPTION_MAX_LENGTH,
  PERSONA_NAME_MAX_LENGTH,
  personaProblem,
  setPersona,
  type UserPersona,
} from '@/lib/persona';
import styles from '@/components/persona-form.module.css';
import { ApiCode } from '@/lib/api-types';
import { notify } from '@/lib/notifications';

export interface PersonaFormProps {
  /** `null`: the persona for every character; else the character this one is for. */
  characterId: string | null;
  /** The persona stored for exactly this target, if any. */
  stored: UserPersona | null;
  /** What the name field starts with when nothing is stored (the name the user goes by now). */
  suggestedName: string;
  /** Answers the persona as stored, or `null` once removed. */
  onChange: (persona: UserPersona | null) => void;
  /** The label of the remove button (it removes the stored persona). */
  removeLabel: string;
  testId: string;
}

/**
 * The name and description of a persona, saved with `setPersona` and removed with
 * `deletePersona`. The server's refusals are shown under the form.
 */
export function PersonaForm({ characterId, stored, suggestedName, onChange, removeLabel, testId }: PersonaFormProps) {
  const { t } = useTranslation('persona');
  const [name, setName] = useState(stored?.name ?? suggestedName);
  const [description, setDescription] = useState(stored?.description ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const problem = personaProblem(name, description);
  const unchanged = stored !== null && name.trim() === stored.name && description.trim() === stored.description;

  const explain = (code: number, msg: string) =>
    setError(code === ApiCode.inputContentIllegal ? t('contentNotAllowed') : msg || t('failed'));

  const save = async () => {
    if (problem || busy) return;
    setBusy(true);
    setError('');
    try {
      const envelope = await setPersona({ characterId, name, description });
      if (envelope.success) {
        setName(envelope.data.name);
        setDescription(envelope.data.description);
        onChange(envelope.data);
        notify.success(t('saved'));
      } else {
        explain(envelope.code, envelope.msg);
      }
    } catch {
      // The API client already said the server could not be reached.
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    if (busy) return;
    setBusy(true);
    setError('');
    try {
      const envelope = await deletePersona(characterId);
      if (envelope.success || envelope.code === ApiCode.notFound) {
        setName(suggestedName);
        setDescription('');
        onChange(null);
        notify.success(t('removed'));
      } else {
        explain(envelope.code, envelope.msg);
      }
    } catch {
      // Said already by the API client.
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className={styles.stackForm}
      data-testid={testId}
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <label className={styles.field}>
        {t('nameLabel')}
        <input
          className={styles.input}
          value={name}
          maxLength={PERSONA_NAME_MAX_LENGTH}
          onChange={(event) => {
            setName(event.target.value);
            setError('');
          }}
          autoComplete="nickname"
          data-testid={`${testId}-name`}
        />
      </label>
      {problem === 'name' && <p className={styles.fieldError}>{t('nameRule')}</p>}
      <label className={styles.field}>
        {t('descriptionLabel')}
        <textarea
          className={styles.textarea}
          value={description}
          placeholder={t('descriptionPlaceholder')}
          onChange={(event) => {
            setDescription(event.target.value);
            setError('');
          }}
          data-testid={`${testId}-description`}
        />
      </label>
      <span className={styles.counter} aria-live="polite">
        {t('charCount', { count: [...description.trim()].length, max: PERSONA_DESCRIPTION_MAX_LENGTH })}
      </span>
      {problem === 'description' && <p className={styles.fieldError}>{t('descriptionRule')}</p>}
      {error && (
        <p className={styles.fieldError} role="alert" data-testid={`${testId}-error`}>
          {error}
        </p>
      )}
      <div className={styles.buttons}>
        {stored && (
          <Button
            variant="secondary"
            size="small"
            onClick={() => void remove()}
            disabled={busy}
            data-testid={`${testId}-remove`}
          >
            {removeLabel}
          </Button>
        )}
        <Button
          type="submit"
          size="small"
          disabled={problem !== null || unchanged || busy}
          aria-busy={busy}
          data-testid={`${testId}-save`}
        >
          {t('save')}
        </Button>
      </div>
    </form>
  );
}

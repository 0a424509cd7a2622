import { useAtom, useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { interestedGenderAtom, isLoggedInAtom, showLoginTipAtom, userInfoAtom } from '@/app/store';
import { Button } from '@/components/button';
import { Spinner } from '@/components/splash';
import { createCharacter, updateCharacter, type Draft, type MyCharacter } from '@/features/create/api/create-api';
import {
  PersonalityStep,
  PublishStep,
  StoryStep,
  StyleStep,
  VoiceStep,
  LooksStep,
} from '@/features/create/components/builder-steps';
import styles from '@/features/create/components/create.module.css';
import type { ShownError } from '@/features/create/components/fields';
import { PortraitPreview } from '@/features/create/components/portrait-preview';
import { useBuilderDraft, type BuilderMode } from '@/features/create/hooks/use-builder-draft';
import { useCreateOptions } from '@/features/create/hooks/use-create-options';
import { usePortraitPreview } from '@/features/create/hooks/use-portrait-preview';
import { withDefaults } from '@/features/create/lib/draft';
import { clearAfterCreate, loadBuilderState, saveBuilderState } from '@/features/create/lib/draft-storage';
import {
  firstInvalidStep,
  parseServerError,
  stepOfField,
  STEPS,
  validateStep,
  type FieldId,
} from '@/features/create/lib/steps';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { useIsMobile } from '@/hooks/use-media-query';
import { ApiCode, type GenderValue } from '@/lib/api-types';
import { nsfwEnabled } from '@/lib/nsfw-preference';
import { notify } from '@/lib/notifications';
import { ROUTES } from '@/lib/routes';
import { STORAGE_KEYS, storage } from '@/lib/storage';

export interface CharacterBuilderProps {
  mode: BuilderMode;
  /** The marketing entry points build a girlfriend; /createcharacter follows the header's switch. */
  forcedGender?: GenderValue;
  /** Where a created or saved character is shown (My AI by default). */
  onDone?: (character: MyCharacter) => void;
}

type Errors = Partial<Record<FieldId, ShownError>>;

/** The adult-content preference this browser sends wins over the account's (as in settings). */
function adultContentOn(accountNsfw: boolean | number | undefined): boolean {
  return storage.get(STORAGE_KEYS.localNsfw) !== null ? nsfwEnabled() : Boolean(accountNsfw);
}

/**
 * The step-by-step builder of a girlfriend or boyfriend (spec section 2 `/createcharacter`,
 * docs/api.md "Created characters"): style, looks, personality and relationship, voice,
 * name and story, then adult content and visibility. Each step checks its fields before Next;
 * the server's refusals (10001, 10070 naming the field) are shown at their field and the
 * builder goes back to its step. Signed-out visitors go through every step and meet the login
 * prompt on Create; the draft waits in storage for them.
 */
export function CharacterBuilder({ mode, forcedGender, onDone }: CharacterBuilderProps) {
  const { t } = useTranslation('create');
  const navigate = useNavigate();
  const localize = useLocalizedPath();
  const mobile = useIsMobile();
  const loggedIn = useAtomValue(isLoggedInAtom);
  const user = useAtomValue(userInfoAtom);
  const openLogin = useSetAtom(showLoginTipAtom);
  const [interestedGender, setInterestedGender] = useAtom(interestedGenderAtom);
  const editing = mode.kind === 'edit';
  const gender: GenderValue = editing ? mode.initial.gender : (forcedGender ?? interestedGender);

  // The draft open last comes back (signing in by mail passes the girls' home, which sets
  // the interested gender to girls).
  const restored = useRef(false);
  useEffect(() => {
    if (restored.current || editing || forcedGender !== undefined) return;
    restored.current = true;
    const last = loadBuilderState().gender;
    if (last !== null && last !== interestedGender) setInterestedGender(last);
  }, [editing, forcedGender, interestedGender, setInterestedGender]);
  useEffect(() => {
    if (!editing) saveBuilderState({ ...loadBuilderState(), gender });
  }, [editing, gender]);

  const { draft, step, update, setStep } = useBuilderDraft(mode, gender);
  const { options, failed, retry } = useCreateOptions(gender);
  const [errors, setErrors] = useState<Errors>({});
  const [topError, setTopError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [pendingCreate] = useState(() => !editing && loadBuilderState().pendingCreate);
  const adultContent = adultContentOn(user?.nsfw);
  const stepIndex = Math.min(step, STEPS.length - 1);
  const stepKey = STEPS[stepIndex]!;
  const last = stepIndex === STEPS.length - 1;
  const formRef = useRef<HTMLFormElement>(null);
  // With no voice for this gender there is nothing to pick: the server chooses one.
  const context = (o: NonNullable<typeof options>) => ({
    voices: o.voices.filter((voice) => voice.gender === gender).length,
  });

  // Empty preset fields take the options' first choice, so the portrait shows from the start.
  useEffect(() => {
    if (!options) return;
    const filled = withDefaults(draft, options);
    if (JSON.stringify(filled) !== JSON.stringify(draft)) update(() => filled);
  }, [options, draft, update]);

  const preview = usePortraitPreview(gender, draft.style, draft.looks);

  // A new step starts at its top with no messages of the last one.
  const goTo = (index: number, shown: Errors = {}) => {
    setErrors(shown);
    setTopError(null);
    setStep(index);
    formRef.current?.scrollIntoView?.({ block: 'start' });
  };

  // A field's message goes once the field changes.
  const change = (fn: (d: Draft) => Draft) => {
    const changed = fn(draft);
    update(fn);
    setErrors((current) =>
      Object.fromEntries(
        Object.entries(current).filter(
          ([field]) => JSON.stringify(fieldValue(changed, field)) === JSON.stringify(fieldValue(draft, field)),
        ),
      ),
    );
  };

  const next = () => {
    if (!options) return;
    const found = validateStep(stepKey, draft, options.limits, context(options));
    if (Object.keys(found).length > 0) {
      setErrors(found);
      focusFirstError();
      return;
    }
    goTo(stepIndex + 1);
  };

  const focusFirstError = () =>
    requestAnimationFrame(() => {
      const field = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"], [data-testid="field-error"]');
      field?.scrollIntoView?.({ block: 'center' });
      if (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) field.focus();
    });

  const submit = async () => {
    if (!options || busy) return;
    const invalid = firstInvalidStep(draft, options.limits, context(options));
    if (invalid) {
      goTo(invalid.step, invalid.errors);
      focusFirstError();
      return;
    }
    if (!loggedIn) {
      // The draft is already stored; the prompt opens and Create works once signed in.
      saveBuilderState({ gender, pendingCreate: true });
      openLogin(true);
      return;
    }
    const payload: Draft = {
      ...draft,
      gender,
      nsfw: adultContent && draft.nsfw,
      characterName: draft.characterName.trim(),
      introduction: draft.introduction.trim(),
      greeting: draft.greeting.trim(),
      scenario: draft.scenario.trim(),
      tags: draft.tags.map((tag) => tag.trim()),
    };
    setBusy(true);
    setTopError(null);
    try {
      const envelope = editing ? await updateCharacter(mode.characterId, payload) : await createCharacter(payload);
      if (envelope.success && envelope.data) {
        if (!editing) clearAfterCreate(gender);
        notify.success(
          editing ? t('saved', { name: payload.characterName }) : t('created', { name: payload.characterName }),
        );
        if (onDone) onDone(envelope.data);
        else navigate(localize(`${ROUTES.myAi}?created=${encodeURIComponent(envelope.data.character.characterId)}`));
        return;
      }
      if (envelope.code === ApiCode.paramError || envelope.code === ApiCode.inputContentIllegal) {
        const { field, message } = parseServerError(envelope.msg);
        const text =
          envelope.code === ApiCode.inputContentIllegal ? t('errors.notAllowed', { reason: message }) : message;
        if (field) {
          goTo(stepOfField(field), { [field]: { server: text } });
          focusFirstError();
        } else setTopError(text || t('errors.generic'));
      } else if (envelope.code === ApiCode.rateLimited) setTopError(t('errors.tooMany'));
      else if (envelope.code === ApiCode.notFound) setTopError(t('errors.gone'));
    } catch {
      // The connection notification has been shown; the draft stays.
    } finally {
      setBusy(false);
    }
  };

  if (failed)
    return (
      <div className={styles.panel}>
        <p className={styles.fieldError}>{t('errors.optionsFailed')}</p>
        <Button variant="secondary" size="small" onClick={retry}>
          {t('retry')}
        </Button>
      </div>
    );
  if (!options)
    return (
      <div className={styles.panel}>
        <Spinner label={t('loading')} />
      </div>
    );

  const stepProps = { draft, options, update: change, errors };
  const switchGender = (next: GenderValue) => {
    setErrors({});
    setInterestedGender(next);
  };

  return (
    <div className={styles.builder} data-testid="character-builder" data-gender={gender} data-step={stepKey}>
      <form
        ref={formRef}
        className={styles.panel}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (last) void submit();
          else next();
        }}
        data-testid="builder-form"
      >
        <div className={styles.progress}>
          <div className={styles.progressHead}>
            <span className={styles.stepCount} data-testid="step-count">
              {t('stepOf', { n: stepIndex + 1, total: STEPS.length })}
            </span>
            <h2 className={styles.stepTitle} data-testid="step-title">
              {t(`steps.${stepKey}`)}
            </h2>
          </div>
          <div
            className={styles.bar}
            role="progressbar"
            aria-valuemin={1}
            aria-valuemax={STEPS.length}
            aria-valuenow={stepIndex + 1}
            aria-label={t('progress')}
          >
            <span style={{ width: `${((stepIndex + 1) / STEPS.length) * 100}%` }} />
          </div>
          <ol className={styles.stepList}>
            {STEPS.map((key, index) => (
              <li key={key}>
                <button
                  type="button"
                  className={styles.stepDot}
                  aria-current={index === stepIndex ? 'step' : undefined}
                  disabled={index > stepIndex}
                  onClick={() => goTo(index)}
                >
                  {t(`steps.${key}`)}
                </button>
              </li>
            ))}
          </ol>
        </div>

        {stepKey === 'style' && (
          <StyleStep
            {...stepProps}
            genderSwitch={
              mobile && !editing && forcedGender === undefined ? { value: gender, onChange: switchGender } : null
            }
          />
        )}
        {stepKey === 'looks' && <LooksStep {...stepProps} />}
        {stepKey === 'personality' && <PersonalityStep {...stepProps} />}
        {stepKey === 'voice' && <VoiceStep {...stepProps} />}
        {stepKey === 'story' && <StoryStep {...stepProps} />}
        {stepKey === 'publish' && <PublishStep {...stepProps} adultContent={adultContent} />}

        {last && !loggedIn && (
          <p className={styles.note} data-testid="sign-in-note">
            {t('publish.signInNote')}
          </p>
        )}
        {last && loggedIn && pendingCreate && (
          <p className={styles.note} data-testid="signed-in-note">
            {t('publish.signedInNote')}
          </p>
        )}
        {topError && (
          <p className={styles.fieldError} role="alert" data-testid="builder-error">
            {topError}
          </p>
        )}
        <div className={styles.actions}>
          <Button
            variant="secondary"
            onClick={() => goTo(stepIndex - 1)}
            disabled={stepIndex === 0 || busy}
            data-testid="builder-back"
          >
            {t('back')}
          </Button>
          {last ? (
            <Button type="submit" disabled={busy} data-testid="builder-create">
              {busy ? t(editing ? 'saving' : 'creating') : t(editing ? 'save' : 'create')}
            </Button>
          ) : (
            <Button type="submit" data-testid="builder-next">
              {t('next')}
            </Button>
          )}
        </div>
      </form>
      <aside className={styles.aside}>
        <PortraitPreview state={preview} name={draft.characterName} age={draft.looks.age} />
      </aside>
    </div>
  );
}

/** The value of a field of the draft, by the server's name for it. */
function fieldValue(draft: Draft, field: string): unknown {
  return field
    .split('.')
    .reduce<unknown>(
      (value, part) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined),
      draft,
    );
}

/**
 * The builder's steps, what each must hold before Next (the same rules the server applies,
 * docs/api.md `Draft`), and where a server refusal belongs: 10001 and 10070 name the field
 * at the start of `msg` (`greeting: This content is not allowed…`).
 */
import type { CreateLimits, Draft } from '@/features/create/api/create-api';

export const STEPS = ['style', 'looks', 'personality', 'voice', 'story', 'publish'] as const;
export type StepKey = (typeof STEPS)[number];

/** The fields of the draft the form shows, as the server names them. */
export type FieldId =
  | 'style'
  | 'looks.age'
  | 'looks.ethnicity'
  | 'looks.eyes'
  | 'looks.hairColor'
  | 'looks.hairStyle'
  | 'looks.body'
  | 'looks.outfit'
  | 'personality.preset'
  | 'personality.text'
  | 'relationship.preset'
  | 'relationship.text'
  | 'voiceId'
  | 'characterName'
  | 'introduction'
  | 'greeting'
  | 'scenario'
  | 'tags'
  | 'nsfw'
  | 'visibility';

/** Which step shows each field. */
export const FIELD_STEP: Record<FieldId, StepKey> = {
  style: 'style',
  'looks.age': 'looks',
  'looks.ethnicity': 'looks',
  'looks.eyes': 'looks',
  'looks.hairColor': 'looks',
  'looks.hairStyle': 'looks',
  'looks.body': 'looks',
  'looks.outfit': 'looks',
  'personality.preset': 'personality',
  'personality.text': 'personality',
  'relationship.preset': 'personality',
  'relationship.text': 'personality',
  voiceId: 'voice',
  characterName: 'story',
  introduction: 'story',
  greeting: 'story',
  scenario: 'story',
  tags: 'story',
  nsfw: 'publish',
  visibility: 'publish',
};

/** A message for one field: a key of the `create` namespace's `errors` and its values. */
export interface FieldError {
  key: 'required' | 'tooLong' | 'age' | 'tagInvalid' | 'tooManyTags' | 'pick';
  values?: Record<string, string | number>;
}

export type FieldErrors = Partial<Record<FieldId, FieldError>>;

/** A tag as `getCharacterList` takes them: 1–30 letters, digits, spaces, `-` or `_`. */
const TAG = /^[\p{L}\p{N} _-]{1,30}$/u;

export function isValidTag(tag: string): boolean {
  return TAG.test(tag.trim()) && tag.trim().length > 0;
}

function checkText(errors: FieldErrors, field: FieldId, value: string, max: number, required: boolean) {
  const trimmed = value.trim();
  if (required && trimmed.length === 0) errors[field] = { key: 'required' };
  else if (trimmed.length > max) errors[field] = { key: 'tooLong', values: { max } };
}

/** What the options offer beyond limits: with no voice for the gender, none can be asked for. */
export interface StepContext {
  voices: number;
}

/** Every problem of the draft's fields on `step` (none: Next may go on). */
export function validateStep(
  step: StepKey,
  draft: Draft,
  limits: CreateLimits,
  context: StepContext = { voices: 1 },
): FieldErrors {
  const errors: FieldErrors = {};
  switch (step) {
    case 'style':
      if (!draft.style) errors.style = { key: 'pick' };
      break;
    case 'looks': {
      const { age } = draft.looks;
      if (!Number.isInteger(age) || age < limits.ageMin || age > limits.ageMax)
        errors['looks.age'] = { key: 'age', values: { min: limits.ageMin, max: limits.ageMax } };
      for (const field of ['ethnicity', 'eyes', 'hairColor', 'hairStyle', 'body', 'outfit'] as const) {
        if (!draft.looks[field]) errors[`looks.${field}`] = { key: 'pick' };
      }
      break;
    }
    case 'personality':
      if (!draft.personality.preset) errors['personality.preset'] = { key: 'pick' };
      checkText(errors, 'personality.text', draft.personality.text, limits.textMax, false);
      if (!draft.relationship.preset) errors['relationship.preset'] = { key: 'pick' };
      checkText(errors, 'relationship.text', draft.relationship.text, limits.textMax, false);
      break;
    case 'voice':
      if (!draft.voiceId && context.voices > 0) errors.voiceId = { key: 'pick' };
      break;
    case 'story':
      checkText(errors, 'characterName', draft.characterName, limits.nameMax, true);
      checkText(errors, 'introduction', draft.introduction, limits.introductionMax, true);
      checkText(errors, 'greeting', draft.greeting, limits.greetingMax, true);
      checkText(errors, 'scenario', draft.scenario, limits.scenarioMax, false);
      if (draft.tags.length > limits.tagsMax) errors.tags = { key: 'tooManyTags', values: { max: limits.tagsMax } };
      else if (draft.tags.some((tag) => !isValidTag(tag))) errors.tags = { key: 'tagInvalid' };
      break;
    case 'publish':
      break;
  }
  return errors;
}

/** The first step (in order) with a problem, checking every step; null when all are fine. */
export function firstInvalidStep(
  draft: Draft,
  limits: CreateLimits,
  context: StepContext = { voices: 1 },
): { step: number; errors: FieldErrors } | null {
  for (const [index, step] of STEPS.entries()) {
    const errors = validateStep(step, draft, limits, context);
    if (Object.keys(errors).length > 0) return { step: index, errors };
  }
  return null;
}

/** A server refusal placed on the form: the field it names (null: not one the form shows) and its text. */
export interface ServerFieldError {
  field: FieldId | null;
  message: string;
}

const FIELDS = new Set(Object.keys(FIELD_STEP));

/**
 * Reads `field: message` from a refusal's `msg`. The server may name a field more precisely
 * than the form shows it (`looks` for the portrait prompt, `tags[2]`, `draft.greeting`): the
 * nearest field the form has takes it.
 */
export function parseServerError(msg: string): ServerFieldError {
  const match = /^\s*([A-Za-z][\w.[\]]*)\s*:\s*(.*)$/s.exec(msg);
  if (!match) return { field: null, message: msg };
  const name = match[1]!.replace(/^draft\./, '').replace(/\[\d+\]/g, '');
  const message = match[2]!.trim() || msg;
  if (FIELDS.has(name)) return { field: name as FieldId, message };
  if (name === 'gender') return { field: 'style', message };
  if (name === 'looks' || name === 'portrait' || name === 'portraitPrompt')
    return { field: 'looks.ethnicity', message };
  if (name === 'personality' || name === 'relationship') return { field: `${name}.preset`, message };
  if (name === 'voice') return { field: 'voiceId', message };
  if (name === 'name') return { field: 'characterName', message };
  return { field: null, message: msg };
}

export function stepOfField(field: FieldId): number {
  return STEPS.indexOf(FIELD_STEP[field]);
}

/**
 * The builder's draft (docs/api.md `Draft`): a blank one, one read back from storage or from
 * `MyCharacter.draft` (anything malformed falls back to blank values, never throws), and the
 * options' first choices filled into preset fields still empty.
 */
import type {
  CreateOptions,
  Draft,
  Looks,
  PresetGroup,
  PresetText,
  Visibility,
} from '@/features/create/api/create-api';
import { Gender, type GenderValue, type Style } from '@/lib/api-types';

/** The age the builder starts from (18 is the minimum; most characters are older). */
export const DEFAULT_AGE = 22;

/** The server's style when a draft names none (docs/api.md `Draft`). */
const DEFAULT_STYLE: Style = 'realistic';

export function isStyle(value: unknown): value is Style {
  return value === 'realistic' || value === 'anime';
}

export function blankDraft(gender: GenderValue): Draft {
  return {
    gender,
    style: DEFAULT_STYLE,
    looks: { age: DEFAULT_AGE, ethnicity: '', eyes: '', hairColor: '', hairStyle: '', body: '', outfit: '' },
    personality: { preset: '', text: '' },
    relationship: { preset: '', text: '' },
    voiceId: '',
    characterName: '',
    introduction: '',
    greeting: '',
    scenario: '',
    tags: [],
    nsfw: false,
    visibility: 'private',
  };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function presetText(value: unknown): PresetText {
  const v = (value ?? {}) as Partial<PresetText>;
  return { preset: text(v.preset), text: text(v.text) };
}

/** A draft of `gender` from anything (stored JSON, a server draft): unknown shapes become blank. */
export function sanitizeDraft(raw: unknown, gender: GenderValue): Draft {
  const blank = blankDraft(gender);
  if (!raw || typeof raw !== 'object') return blank;
  const r = raw as Partial<Record<keyof Draft, unknown>>;
  const looks = (r.looks ?? {}) as Partial<Record<keyof Looks, unknown>>;
  const age = Number(looks.age);
  const visibility: Visibility = r.visibility === 'public' ? 'public' : 'private';
  return {
    gender,
    style: isStyle(r.style) ? r.style : DEFAULT_STYLE,
    looks: {
      age: Number.isFinite(age) && age > 0 ? Math.round(age) : DEFAULT_AGE,
      ethnicity: text(looks.ethnicity),
      eyes: text(looks.eyes),
      hairColor: text(looks.hairColor),
      hairStyle: text(looks.hairStyle),
      body: text(looks.body),
      outfit: text(looks.outfit),
    },
    personality: presetText(r.personality),
    relationship: presetText(r.relationship),
    voiceId: text(r.voiceId),
    characterName: text(r.characterName),
    introduction: text(r.introduction),
    greeting: text(r.greeting),
    scenario: text(r.scenario),
    tags: Array.isArray(r.tags) ? r.tags.filter((tag): tag is string => typeof tag === 'string') : [],
    nsfw: r.nsfw === true,
    visibility,
  };
}

/** The looks fields and the preset group each one picks from. */
export const LOOKS_GROUPS: readonly (readonly [Exclude<keyof Looks, 'age'>, PresetGroup])[] = [
  ['ethnicity', 'ethnicities'],
  ['eyes', 'eyes'],
  ['hairColor', 'hairColors'],
  ['hairStyle', 'hairStyles'],
  ['body', 'bodies'],
  ['outfit', 'outfits'],
];

const known = (options: CreateOptions, group: PresetGroup, key: string) =>
  options[group].some((preset) => preset.key === key);

/**
 * Where the draft holds no choice (or one the options no longer offer), the first offered:
 * the portrait can be drawn from the first step on. Personality and relationship stay for
 * the user to pick; the voice is the first of the draft's gender.
 */
export function withDefaults(draft: Draft, options: CreateOptions): Draft {
  const first = (group: PresetGroup, current: string) =>
    known(options, group, current) ? current : (options[group][0]?.key ?? current);
  const style = first('styles', draft.style);
  const looks = { ...draft.looks };
  for (const [field, group] of LOOKS_GROUPS) looks[field] = first(group, looks[field]);
  const voices = options.voices.filter((voice) => voice.gender === draft.gender);
  const voiceId = voices.some((voice) => voice.voiceId === draft.voiceId)
    ? draft.voiceId
    : (voices[0]?.voiceId ?? draft.voiceId);
  return { ...draft, style: isStyle(style) ? style : draft.style, looks, voiceId };
}

export function isGenderValue(value: unknown): value is GenderValue {
  return value === Gender.girls || value === Gender.guys;
}

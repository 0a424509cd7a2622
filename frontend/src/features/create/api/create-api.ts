/**
 * The calls of docs/api.md "Created characters, My AI and character cards" (issue 17): the
 * builder's options and portrait preview, creating and editing a character, the user's own
 * characters (My AI) and character cards in and out. Every answer a screen explains in place
 * (bad data naming a field, content not allowed, too many, unknown) is handled by the caller.
 */
import { apiPost } from '@/lib/api-client';
import {
  ApiCode,
  type Character,
  type CharacterRef,
  type CreateRequest,
  type ExportRequest,
  type ImportRequest,
  type OptionsRequest,
  type PreviewRequest,
  type Style,
  type UpdateRequest,
  type VisibilityRequest,
  type CreateLimits,
  type CreateOptions,
  type Draft,
  type ExportedCard,
  type GenderValue,
  type Looks,
  type MyCharacter,
  type MyListRequest,
  type PortraitPreview,
  type Preset,
  type Visibility,
} from '@/lib/api-types';

export type {
  CharacterStatus,
  CreateLimits,
  CreateOptions,
  Draft,
  ExportedCard,
  Looks,
  MyCharacter,
  PortraitPreview,
  Preset,
  PresetText,
  Visibility,
  VoiceOption,
} from '@/lib/api-types';

/** A character as served to its creator (with `creatorId` and the card's fields). */
export type OwnCharacter = Character;

export type PresetGroup =
  | 'styles'
  | 'ethnicities'
  | 'eyes'
  | 'hairColors'
  | 'hairStyles'
  | 'bodies'
  | 'outfits'
  | 'personalities'
  | 'relationships';

/** The limits docs/api.md gives, used until the options arrive (and by validation tests). */
export const DEFAULT_LIMITS: CreateLimits = {
  nameMax: 40,
  introductionMax: 300,
  greetingMax: 2000,
  scenarioMax: 2000,
  textMax: 1000,
  tagsMax: 10,
  ageMin: 18,
  ageMax: 100,
};

export type CardFormat = 'png' | 'json';

/** My AI page size: the largest page the server serves (a user may have up to 100 characters). */
export const MY_CHARACTERS_PAGE_SIZE = 60;
/** The largest card file the server reads (docs/api.md: the file ≤ 8 MiB). */
export const CARD_MAX_BYTES = 8 * 1024 * 1024;

/** Refusals the builder and My AI explain in place. */
const EXPLAINED = [ApiCode.paramError, ApiCode.inputContentIllegal, ApiCode.rateLimited, ApiCode.notFound];

/**
 * A preset group as served: `{key}` objects (or plain keys, read the same way), so that the
 * screens only ever see `Preset`.
 */
function normalizeGroup(list: unknown): Preset[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item): Preset[] => {
    if (typeof item === 'string') return [{ key: item }];
    if (item && typeof item === 'object' && typeof (item as Preset).key === 'string') return [item as Preset];
    return [];
  });
}

const GROUPS: readonly PresetGroup[] = [
  'styles',
  'ethnicities',
  'eyes',
  'hairColors',
  'hairStyles',
  'bodies',
  'outfits',
  'personalities',
  'relationships',
];

export function normalizeOptions(
  raw: Partial<CreateOptions> & Record<string, unknown>,
  gender: GenderValue,
): CreateOptions {
  const groups = Object.fromEntries(GROUPS.map((group) => [group, normalizeGroup(raw[group])])) as Record<
    PresetGroup,
    Preset[]
  >;
  return {
    ...groups,
    gender: raw.gender === 0 || raw.gender === 1 ? raw.gender : gender,
    voices: Array.isArray(raw.voices) ? raw.voices : [],
    limits: { ...DEFAULT_LIMITS, ...(raw.limits ?? {}) },
  };
}

/** POST character/getCreateOptions: open to everyone (the builder works signed out). */
export async function getCreateOptions(gender: GenderValue) {
  const envelope = await apiPost<CreateOptions>('/user/v1/character/getCreateOptions', {
    gender,
  } satisfies OptionsRequest);
  if (envelope.success && envelope.data) envelope.data = normalizeOptions(envelope.data, gender);
  return envelope;
}

/** POST character/previewPortrait: the portrait the image pipeline would draw; 10003 past 30 a minute. */
export function previewPortrait(gender: GenderValue, style: Style, looks: Looks) {
  return apiPost<PortraitPreview>(
    '/user/v1/character/previewPortrait',
    { gender, style, looks } satisfies PreviewRequest,
    { handledCodes: EXPLAINED },
  );
}

/** POST character/create: signed in; 10001/10070 name the field at the start of `msg`. */
export function createCharacter(draft: Draft) {
  return apiPost<MyCharacter>('/user/v1/character/create', { draft } satisfies CreateRequest, {
    handledCodes: EXPLAINED,
  });
}

/** POST character/update: the creator's only; a public character goes back to review. */
export function updateCharacter(characterId: string, draft: Draft) {
  return apiPost<MyCharacter>('/user/v1/character/update', { characterId, draft } satisfies UpdateRequest, {
    handledCodes: EXPLAINED,
  });
}

/** POST character/delete: its portrait, conversations, memories and images go with it. */
export function deleteCharacter(characterId: string) {
  return apiPost<boolean>('/user/v1/character/delete', { characterId } satisfies CharacterRef);
}

/** POST character/duplicate: a private copy ("Name (copy)"). */
export function duplicateCharacter(characterId: string) {
  return apiPost<MyCharacter>('/user/v1/character/duplicate', { characterId } satisfies CharacterRef, {
    handledCodes: EXPLAINED,
  });
}

/** POST character/setVisibility: `private` leaves the catalogue at once, `public` goes to review. */
export function setVisibility(characterId: string, visibility: Visibility) {
  return apiPost<MyCharacter>('/user/v1/character/setVisibility', {
    characterId,
    visibility,
  } satisfies VisibilityRequest);
}

/** POST character/getMyCharacters: newest first. */
export function getMyCharacters(pageNo = 1, pageSize = MY_CHARACTERS_PAGE_SIZE) {
  return apiPost<MyCharacter[]>('/user/v1/character/getMyCharacters', { pageNo, pageSize } satisfies MyListRequest);
}

/**
 * Every character of the user, page after page until one is not full (My AI shows them all
 * at once; a user has at most a hundred). The first failure answers for the whole list.
 */
export async function getAllMyCharacters() {
  const all: MyCharacter[] = [];
  for (let pageNo = 1; ; pageNo += 1) {
    const envelope = await getMyCharacters(pageNo);
    if (!envelope.success || !Array.isArray(envelope.data)) return envelope;
    all.push(...envelope.data);
    if (envelope.data.length < MY_CHARACTERS_PAGE_SIZE) return { ...envelope, data: all };
  }
}

/**
 * POST character/importCard: a V1/V2/V3 card as PNG, JSON or CHARX. A card without an age
 * answers 10001 `characterAge: …`; the screen asks and sends again with `age`. `gender` is
 * used when the card does not say (`extensions.amora.gender`).
 */
export function importCard(card: ImportRequest) {
  return apiPost<MyCharacter>('/user/v1/character/importCard', card, { handledCodes: EXPLAINED });
}

/** POST character/exportCard: PNG (with `chara` and `ccv3`) or V3 JSON, as base64. */
export function exportCard(characterId: string, format: CardFormat) {
  return apiPost<ExportedCard>('/user/v1/character/exportCard', { characterId, format } satisfies ExportRequest, {
    handledCodes: EXPLAINED,
  });
}

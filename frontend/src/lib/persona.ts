/**
 * The user's persona (docs/api.md "The user's persona", issue 18): the name and short
 * description characters know the user by, for every character (`characterId: null`, set in
 * settings) or for one character (set from its chat), where it replaces the first.
 */
import { apiPost } from '@/lib/api-client';
import { ApiCode, type DeletePersonaRequest, type SetPersonaRequest, type UserPersona } from '@/lib/api-types';

export type { UserPersona } from '@/lib/api-types';

export const PERSONA_NAME_MAX_LENGTH = 30;
export const PERSONA_DESCRIPTION_MAX_LENGTH = 500;

/** What the server would refuse, checked before sending: 'name', 'description' or null. */
export function personaProblem(name: string, description: string): 'name' | 'description' | null {
  const nameLength = [...name.trim()].length;
  if (nameLength < 1 || nameLength > PERSONA_NAME_MAX_LENGTH) return 'name';
  if ([...description.trim()].length > PERSONA_DESCRIPTION_MAX_LENGTH) return 'description';
  return null;
}

/** The persona that applies with `characterId`: its own, else the one for every character. */
export function personaFor(personas: UserPersona[], characterId: string): UserPersona | null {
  return personas.find((p) => p.characterId === characterId) ?? personas.find((p) => p.characterId === null) ?? null;
}

/** Failures the form explains next to its fields. */
const FORM_CODES = [ApiCode.paramError, ApiCode.inputContentIllegal, ApiCode.notFound];

/** POST /user/v1/persona/getPersonaList: the one for every character first. */
export function getPersonaList() {
  return apiPost<UserPersona[]>('/user/v1/persona/getPersonaList', {});
}

/** POST /user/v1/persona/setPersona: creates or replaces; answers it as stored. */
export function setPersona(persona: UserPersona) {
  const payload: SetPersonaRequest = {
    characterId: persona.characterId,
    name: persona.name.trim(),
    description: persona.description.trim(),
  };
  return apiPost<UserPersona>('/user/v1/persona/setPersona', payload, { handledCodes: FORM_CODES });
}

/** POST /user/v1/persona/deletePersona: the character goes back to the persona above it. */
export function deletePersona(characterId: string | null) {
  return apiPost<boolean>('/user/v1/persona/deletePersona', { characterId } satisfies DeletePersonaRequest, {
    handledCodes: FORM_CODES,
  });
}

import { apiPost } from '@/lib/api-client';
import { ApiCode, type Character } from '@/lib/api-types';

/**
 * POST /user/v1/character/getCharacterInfo: one character with its tags (the list's cards
 * carry none). 10006 (unknown or hidden) is answered quietly: the caller skips the character.
 */
export function getCharacterInfo(characterId: string) {
  return apiPost<Character>('/user/v1/character/getCharacterInfo', { characterId }, { quiet: true, handledCodes: [ApiCode.notFound] });
}

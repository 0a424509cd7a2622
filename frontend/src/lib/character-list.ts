import { apiPost } from '@/lib/api-client';
import type { CharacterCard, CharacterListQuery } from '@/lib/api-types';

export type { CharacterListQuery } from '@/lib/api-types';

/** The home grid's page size (spec section 9). */
export const HOME_PAGE_SIZE = 30;

/** POST /user/v1/character/getCharacterList: the whole envelope, data being the page. */
export function getCharacterList(query: CharacterListQuery) {
  return apiPost<CharacterCard[]>('/user/v1/character/getCharacterList', query);
}

import { apiPost } from '@/lib/api-client';
import type { CharacterCard, GenderValue } from '@/lib/api-types';

/** The home grid's page size (spec section 9). */
export const HOME_PAGE_SIZE = 30;

export interface CharacterListQuery {
  pageNo: number;
  pageSize: number;
  gender: GenderValue;
  /** Project extension (docs/api.md): only characters carrying one of these tags, most shared first. */
  tags?: string[];
}

/** POST /user/v1/character/getCharacterList: the whole envelope, data being the page. */
export function getCharacterList(query: CharacterListQuery) {
  return apiPost<CharacterCard[]>('/user/v1/character/getCharacterList', query);
}

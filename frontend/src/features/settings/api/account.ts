/** The signed-in person's own account (API.md section 2, docs/api.md "Sign-in"). */
import { apiGet, apiPost } from '@/lib/api-client';
import {
  ApiCode,
  type CharacterCard,
  type UpdateInfoRequest,
  type UpdatePasswordRequest,
  type UpdateWebDataRequest,
  type UserDetail,
  type UserInfo,
} from '@/lib/api-types';
import type { Language } from '@/lib/languages';

export type { UserDetail } from '@/lib/api-types';

/** GET /user/v1/getOwnUserInfoDetail. */
export function getOwnUserInfoDetail() {
  return apiGet<UserDetail>('/user/v1/getOwnUserInfoDetail');
}

/** Failures the forms explain next to the field instead of the generic notification. */
const FORM_CODES = [ApiCode.paramError, ApiCode.accountPwdError, ApiCode.inputContentIllegal, ApiCode.rateLimited];

/** POST /user/v1/updateUserInfo: a name of 1–30 characters and/or an avatar `/media/<id>` ('' removes it). */
export function updateUserInfo(change: UpdateInfoRequest) {
  return apiPost<UserInfo>('/user/v1/updateUserInfo', change, { handledCodes: FORM_CODES });
}

/** POST /user/v1/updateUserPassword: the old password is needed once one exists. */
export function updateUserPassword(change: UpdatePasswordRequest) {
  return apiPost<boolean>('/user/v1/updateUserPassword', change, { handledCodes: FORM_CODES });
}

/** POST /user/v1/updateWebData: preferences kept with the account. */
export function updateWebData(change: UpdateWebDataRequest & { language?: Language }) {
  return apiPost<boolean>('/user/v1/updateWebData', change);
}

/** POST /user/v1/deleteUser: deletes the account and its data and ends every session. */
export function deleteUser() {
  return apiPost<boolean>('/user/v1/deleteUser', {});
}

/** Avatars are portraits of this site: the first characters of each catalogue. */
export const AVATAR_CHOICES_PER_GENDER = 12;

export async function getAvatarChoices(): Promise<string[]> {
  const pages = await Promise.all(
    ([0, 1] as const).map((gender) =>
      apiPost<CharacterCard[]>(
        '/user/v1/character/getCharacterList',
        { pageNo: 1, pageSize: AVATAR_CHOICES_PER_GENDER, gender },
        { quiet: true },
      ).catch(() => null),
    ),
  );
  const photos = pages
    .flatMap((envelope) => (envelope?.success && Array.isArray(envelope.data) ? envelope.data : []))
    .filter((card) => card.usedType !== 1)
    .map((card) => card.characterPhoto)
    .filter((photo) => photo.startsWith('/media/'));
  return [...new Set(photos)];
}

import type { UserInfo } from '@/lib/api-types';

/** A signed-in free user as `getUserInfo` answers; tests change what they are about. */
export function aUser(changes: Partial<UserInfo> = {}): UserInfo {
  return {
    userId: 'u1',
    userNo: 'AB12CD',
    userName: 'mira',
    email: 'mira@example.com',
    discordEmail: null,
    appleEmail: null,
    userVipType: 0,
    coin: 0,
    userAvatar: '',
    utmSource: '',
    interestedGender: 0,
    nsfw: false,
    ...changes,
  };
}

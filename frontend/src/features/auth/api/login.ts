import { apiPost } from '@/lib/api-client';
import type { UserInfo } from '@/lib/api-types';

export interface SignInResult {
  voucher: string;
  userInfo: UserInfo;
}

/** POST /login/v1/sendRegisterUserEmail: `true` when the sign-in link was sent. */
export function sendRegisterUserEmail(payload: { emailAddress: string; cfToken: string }) {
  return apiPost<boolean>('/login/v1/sendRegisterUserEmail', payload, { handledCodes: 'all' });
}

/** POST /login/v1/userPasswordLogin: sets the session cookie on success. */
export function userPasswordLogin(payload: { userNo: string; password: string }) {
  return apiPost<SignInResult>('/login/v1/userPasswordLogin', payload, { handledCodes: 'all' });
}

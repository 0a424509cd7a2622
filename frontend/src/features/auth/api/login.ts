import { apiPost } from '@/lib/api-client';
import type { PasswordLoginRequest, SendLinkRequest, SignInResult } from '@/lib/api-types';

/** POST /login/v1/sendRegisterUserEmail: `true` when the sign-in link was sent. */
export function sendRegisterUserEmail(payload: SendLinkRequest) {
  return apiPost<boolean>('/login/v1/sendRegisterUserEmail', payload, { handledCodes: 'all' });
}

/** POST /login/v1/userPasswordLogin: sets the session cookie on success. */
export function userPasswordLogin(payload: PasswordLoginRequest) {
  return apiPost<SignInResult>('/login/v1/userPasswordLogin', payload, { handledCodes: 'all' });
}

/**
 * The login modal's steps and inputs (spec sections 2, 4 and 5) as one reducer: 1 choose a
 * method, 2 e-mail with the bot check, 3 link sent, 4 ID and password. The requests and
 * their effects are in hooks/use-login-flow.ts; the steps' views in components/login/.
 */
import { BOT_CHECK_IDLE, type BotCheckState } from '@/features/auth/hooks/use-bot-check';

export const LOGIN_STEPS = { choose: 1, email: 2, sent: 3, password: 4 } as const;
export type LoginStep = (typeof LOGIN_STEPS)[keyof typeof LOGIN_STEPS];

export const USER_NO_MAX_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 20;

const EMAIL_PATTERN =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isValidEmail(value: string): boolean {
  return EMAIL_PATTERN.test(value.trim());
}

/** Email is enabled for a valid address with a bot-check token, and not while anything runs. */
export function canSendEmail(email: string, check: BotCheckState, sending: boolean): boolean {
  return isValidEmail(email) && check.status === 'verified' && !sending;
}

/** Log in is enabled once both ID and password are filled (spec section 5). */
export function canLogIn(userNo: string, password: string): boolean {
  return userNo.trim() !== '' && password !== '';
}

export interface LoginFlow {
  step: LoginStep;
  email: string;
  userNo: string;
  password: string;
  check: BotCheckState;
  /** A new key mounts a new bot check: a token is good for one send only. */
  checkKey: number;
  /** A sign-in request runs. */
  submitting: boolean;
  /** What the last request was refused with, shown in the step's alert. */
  error: string;
}

export const LOGIN_FLOW_START: LoginFlow = {
  step: LOGIN_STEPS.choose,
  email: '',
  userNo: '',
  password: '',
  check: BOT_CHECK_IDLE,
  checkKey: 0,
  submitting: false,
  error: '',
};

export type LoginFlowAction =
  /** The modal closed, however: it opens next time at step 1 with empty inputs. */
  | { type: 'closed' }
  /** A method was picked, or a back button went to step 1. */
  | { type: 'stepChosen'; step: typeof LOGIN_STEPS.choose | typeof LOGIN_STEPS.email | typeof LOGIN_STEPS.password }
  | { type: 'emailTyped'; email: string }
  | { type: 'userNoTyped'; userNo: string }
  | { type: 'passwordTyped'; password: string }
  | { type: 'botCheckChanged'; check: BotCheckState }
  | { type: 'submitted' }
  | { type: 'emailSent' }
  /** The send was refused or failed: the token was spent, so a fresh check is needed. */
  | { type: 'emailRefused'; error: string }
  | { type: 'loginRefused'; error: string };

/** A new bot check: idle, under a new key. */
function freshCheck(state: LoginFlow): Pick<LoginFlow, 'check' | 'checkKey'> {
  return { check: BOT_CHECK_IDLE, checkKey: state.checkKey + 1 };
}

export function loginFlowReducer(state: LoginFlow, action: LoginFlowAction): LoginFlow {
  switch (action.type) {
    case 'closed':
      return { ...LOGIN_FLOW_START, ...freshCheck(state) };
    case 'stepChosen':
      return { ...state, ...freshCheck(state), step: action.step, error: '' };
    case 'emailTyped':
      return { ...state, email: action.email };
    case 'userNoTyped':
      return { ...state, userNo: action.userNo.slice(0, USER_NO_MAX_LENGTH) };
    case 'passwordTyped':
      return { ...state, password: action.password.slice(0, PASSWORD_MAX_LENGTH) };
    case 'botCheckChanged':
      return { ...state, check: action.check };
    case 'submitted':
      return { ...state, submitting: true, error: '' };
    case 'emailSent':
      return { ...state, step: LOGIN_STEPS.sent, submitting: false };
    case 'emailRefused':
      return { ...state, ...freshCheck(state), submitting: false, error: action.error };
    case 'loginRefused':
      return { ...state, submitting: false, error: action.error };
  }
}

import { describe, expect, it } from 'vitest';
import { BOT_CHECK_IDLE } from '@/features/auth/hooks/use-bot-check';
import {
  canLogIn,
  canSendEmail,
  isValidEmail,
  LOGIN_FLOW_START,
  LOGIN_STEPS,
  loginFlowReducer,
  type LoginFlow,
  type LoginFlowAction,
} from '@/features/auth/stores/login-flow';

const verified = { status: 'verified', token: 't' } as const;

function run(...actions: LoginFlowAction[]): LoginFlow {
  return actions.reduce(loginFlowReducer, LOGIN_FLOW_START);
}

describe('login flow', () => {
  it('starts at step 1 with empty inputs, an idle check and nothing running', () => {
    expect(LOGIN_FLOW_START).toMatchObject({
      step: LOGIN_STEPS.choose,
      email: '',
      userNo: '',
      password: '',
      check: BOT_CHECK_IDLE,
      submitting: false,
      error: '',
    });
  });

  it('goes 1 → 2 → 3 by e-mail: the send runs, then the link is sent and the address kept', () => {
    let state = run(
      { type: 'stepChosen', step: LOGIN_STEPS.email },
      { type: 'emailTyped', email: ' me@example.com ' },
      { type: 'botCheckChanged', check: verified },
    );
    expect(state.step).toBe(LOGIN_STEPS.email);
    expect(canSendEmail(state.email, state.check, state.submitting)).toBe(true);
    state = loginFlowReducer(state, { type: 'submitted' });
    expect(state.submitting).toBe(true);
    expect(canSendEmail(state.email, state.check, state.submitting)).toBe(false);
    state = loginFlowReducer(state, { type: 'emailSent' });
    expect(state).toMatchObject({ step: LOGIN_STEPS.sent, submitting: false, email: ' me@example.com ' });
  });

  it('a refused send stays on step 2 with the error and a fresh check under a new key', () => {
    const before = run(
      { type: 'stepChosen', step: LOGIN_STEPS.email },
      { type: 'emailTyped', email: 'me@example.com' },
      { type: 'botCheckChanged', check: verified },
      { type: 'submitted' },
    );
    const state = loginFlowReducer(before, { type: 'emailRefused', error: 'bot check failed' });
    expect(state).toMatchObject({
      step: LOGIN_STEPS.email,
      email: 'me@example.com',
      submitting: false,
      error: 'bot check failed',
      check: BOT_CHECK_IDLE,
    });
    expect(state.checkKey).toBe(before.checkKey + 1);
  });

  it('step 4 cuts ID at 10 and password at 20 characters; a refusal keeps the inputs and says why', () => {
    let state = run(
      { type: 'stepChosen', step: LOGIN_STEPS.password },
      { type: 'userNoTyped', userNo: 'ABCDEFGHIJKL' },
      { type: 'passwordTyped', password: 'p'.repeat(25) },
    );
    expect(state).toMatchObject({ step: LOGIN_STEPS.password, userNo: 'ABCDEFGHIJ', password: 'p'.repeat(20) });
    state = loginFlowReducer(loginFlowReducer(state, { type: 'submitted' }), {
      type: 'loginRefused',
      error: 'Incorrect username or password.',
    });
    expect(state).toMatchObject({ submitting: false, error: 'Incorrect username or password.', userNo: 'ABCDEFGHIJ' });
    // The next attempt clears the old error while it runs.
    expect(loginFlowReducer(state, { type: 'submitted' }).error).toBe('');
  });

  it('back to step 1 clears the error and the check but keeps what was typed', () => {
    const refused = run(
      { type: 'stepChosen', step: LOGIN_STEPS.email },
      { type: 'emailTyped', email: 'me@example.com' },
      { type: 'botCheckChanged', check: verified },
      { type: 'emailRefused', error: 'no' },
      { type: 'botCheckChanged', check: verified },
    );
    const back = loginFlowReducer(refused, { type: 'stepChosen', step: LOGIN_STEPS.choose });
    expect(back).toMatchObject({ step: LOGIN_STEPS.choose, error: '', check: BOT_CHECK_IDLE, email: 'me@example.com' });
    expect(back.checkKey).toBe(refused.checkKey + 1);
  });

  it('closing starts over at step 1 with empty inputs, under a new check key', () => {
    const typed = run(
      { type: 'stepChosen', step: LOGIN_STEPS.password },
      { type: 'userNoTyped', userNo: 'A1' },
      { type: 'passwordTyped', password: 'x' },
      { type: 'submitted' },
    );
    const closed = loginFlowReducer(typed, { type: 'closed' });
    expect(closed).toEqual({ ...LOGIN_FLOW_START, checkKey: typed.checkKey + 1 });
  });
});

describe('login rules', () => {
  it('Email needs a valid address, a verified check, and nothing running', () => {
    expect(canSendEmail('a@b.co', verified, false)).toBe(true);
    expect(canSendEmail('a@b', verified, false)).toBe(false);
    expect(canSendEmail('a@b.co', BOT_CHECK_IDLE, false)).toBe(false);
    expect(canSendEmail('a@b.co', { status: 'running', token: null }, false)).toBe(false);
    expect(canSendEmail('a@b.co', { status: 'failed', token: null }, false)).toBe(false);
    expect(canSendEmail('a@b.co', verified, true)).toBe(false);
  });

  it('Log in needs both fields', () => {
    expect(canLogIn('A1', 'x')).toBe(true);
    expect(canLogIn('', 'x')).toBe(false);
    expect(canLogIn('  ', 'x')).toBe(false);
    expect(canLogIn('A1', '')).toBe(false);
  });

  it('the e-mail pattern accepts standard addresses and rejects others', () => {
    expect(isValidEmail('a.b+c@mail.example.org')).toBe(true);
    expect(isValidEmail(' padded@example.com ')).toBe(true);
    expect(isValidEmail('no-at-sign.com')).toBe(false);
    expect(isValidEmail('two@@example.com')).toBe(false);
    expect(isValidEmail('spaces in@example.com')).toBe(false);
  });
});

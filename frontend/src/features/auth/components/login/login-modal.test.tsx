import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_WEB_CONFIG,
  globalWebConfigAtom,
  notificationsAtom,
  showLoginTipAtom,
  store,
  userInfoAtom,
} from '@/app/store';
import { LOGIN_ART, pickLoginArt } from '@/features/auth/components/login/login-art';
import LoginModal from '@/features/auth/components/login/login-modal';
import {
  BOT_CHECK_UNSUPPORTED_TOKEN,
  type Turnstile,
  type TurnstileOptions,
} from '@/features/auth/hooks/use-bot-check';
import { ApiCode, type SignInConfig } from '@/lib/api-types';
import { decryptText, encryptText } from '@/lib/envelope-crypto';
import { pageNavigation } from '@/lib/page-navigation';

const DEVELOPMENT: SignInConfig = { googleEnabled: true, discordEnabled: true, botCheckMode: 'development' };
const TURNSTILE: SignInConfig = {
  googleEnabled: true,
  discordEnabled: true,
  botCheckMode: 'turnstile',
  turnstileSiteKey: '1x00000000000000000000AA',
};

const USER = {
  userId: 'u1',
  userNo: 'AB12CD',
  userName: 'me',
  email: 'me@example.com',
  discordEmail: null,
  appleEmail: null,
  userVipType: 0,
  coin: 0,
  userAvatar: '',
  utmSource: '',
  interestedGender: 0,
  nsfw: false,
};

type Reply = { code: number; data?: unknown; msg?: string };

/** Telemetry calls are not what these tests are about. */
const isTelemetry = (url: string) => url.startsWith('/lust/api/spm');

/** Answers every API call with the next reply of the list (the last one repeats), encrypted like the server. */
function respondWith(...replies: Reply[]) {
  let call = 0;
  const fetchMock = vi.fn(async (url: string, init: RequestInit) => {
    const {
      code,
      data = null,
      msg = '',
    } = isTelemetry(url) ? { code: 200, data: true } : replies[Math.min(call++, replies.length - 1)]!;
    const key = (init.headers as Record<string, string>).secretKey!;
    const plain = JSON.stringify({ code, msg, success: code === 200, data });
    return new Response(JSON.stringify({ responseData: await encryptText(key, plain) }), { status: 200 });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

async function sentPayload(fetchMock: ReturnType<typeof respondWith>, path: string) {
  const call = fetchMock.mock.calls.find(([url]) => url === `/lust/api${path}`);
  expect(call, `no call to ${path}`).toBeDefined();
  const [, init] = call!;
  const key = (init.headers as Record<string, string>).secretKey!;
  return JSON.parse(await decryptText(key, JSON.parse(init.body as string).requestData)) as Record<string, unknown>;
}

function renderModal(signIn: SignInConfig | null = DEVELOPMENT) {
  act(() => {
    store.set(globalWebConfigAtom, { ...DEFAULT_WEB_CONFIG, signIn });
    store.set(showLoginTipAtom, true);
  });
  return render(
    <Provider store={store}>
      <MemoryRouter>
        <LoginModal />
      </MemoryRouter>
    </Provider>,
  );
}

/** A stand-in for Cloudflare's script: records the render options so a test can answer. */
function fakeTurnstile() {
  const widgets: TurnstileOptions[] = [];
  const turnstile: Turnstile = {
    render: vi.fn((_container: HTMLElement, options: TurnstileOptions) => {
      widgets.push(options);
      return `widget-${widgets.length}`;
    }),
    reset: vi.fn(),
    remove: vi.fn(),
  };
  window.turnstile = turnstile;
  return { turnstile, widgets, latest: () => widgets[widgets.length - 1]! };
}

const emailInput = () => screen.getByTestId('login-email-input');
const emailSubmit = () => screen.getByTestId('login-email-submit');

function openEmailStep(address = 'me@example.com') {
  fireEvent.click(screen.getByTestId('login-email-method'));
  fireEvent.change(emailInput(), { target: { value: address } });
}

beforeEach(() => {
  Object.defineProperty(window, 'innerWidth', { configurable: true, value: 1280 });
  Object.defineProperty(window, 'innerHeight', { configurable: true, value: 900 });
  vi.spyOn(pageNavigation, 'assign').mockImplementation(() => undefined);
  vi.spyOn(pageNavigation, 'reload').mockImplementation(() => undefined);
});

afterEach(() => {
  vi.unstubAllGlobals();
  delete window.turnstile;
  act(() => {
    store.set(showLoginTipAtom, false);
    store.set(globalWebConfigAtom, DEFAULT_WEB_CONFIG);
    store.set(notificationsAtom, []);
    store.set(userInfoAtom, null);
  });
});

describe('step 1: choose a method', () => {
  it('offers Google, Discord, e-mail and ID, with Terms and Privacy; 567 px wide, at most screen height − 200', () => {
    renderModal();
    expect(screen.getByRole('button', { name: 'Sign in with Google' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Sign in with Discord' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Continue with email' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Log in with ID and password' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Terms of Use' })).toHaveAttribute('href', '/terms-of-service');
    expect(screen.getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/privacy-policy');
    const dialog = screen.getByTestId('login-modal');
    expect(dialog.style.width).toBe('567px');
    expect(dialog.style.maxHeight).toBe('700px');
  });

  it('is 375 px wide on screens of 480 px or less', () => {
    Object.defineProperty(window, 'innerWidth', { configurable: true, value: 480 });
    renderModal();
    expect(screen.getByTestId('login-modal').style.width).toBe('375px');
  });

  it('sends the browser to the server to start Google or Discord, with the current page as state', () => {
    renderModal();
    fireEvent.click(screen.getByTestId('login-google'));
    expect(pageNavigation.assign).toHaveBeenLastCalledWith(
      `/lust/api/googleLogin?state=${encodeURIComponent(window.location.href)}`,
    );
    fireEvent.click(screen.getByTestId('login-discord'));
    expect(pageNavigation.assign).toHaveBeenLastCalledWith(
      `/lust/api/discordLogin?state=${encodeURIComponent(window.location.href)}`,
    );
  });

  it('disables a provider the server has not set up, and says so', () => {
    renderModal({ ...DEVELOPMENT, googleEnabled: false });
    const google = screen.getByTestId('login-google');
    expect(google).toBeDisabled();
    expect(google).toHaveTextContent('Not available');
    expect(google).toHaveAccessibleDescription('Not available');
    expect(screen.getByTestId('login-discord')).toBeEnabled();
    expect(screen.getByTestId('login-discord')).not.toHaveTextContent('Not available');
  });
});

describe('step 2: e-mail with the development bot check', () => {
  it('enables Email only for a valid address with the box ticked, then shows step 3 with the address', async () => {
    const fetchMock = respondWith({ code: 200, data: true });
    renderModal();
    openEmailStep('me@example');
    expect(screen.getByText("I'm not a robot")).toBeInTheDocument();
    expect(screen.getByText(/Development check/)).toBeInTheDocument();
    expect(emailSubmit()).toBeDisabled();

    fireEvent.click(screen.getByTestId('bot-check-development-checkbox'));
    expect(emailSubmit()).toBeDisabled();
    fireEvent.change(emailInput(), { target: { value: 'me@example.com' } });
    expect(emailSubmit()).toBeEnabled();
    fireEvent.click(screen.getByTestId('bot-check-development-checkbox'));
    expect(emailSubmit()).toBeDisabled();
    fireEvent.click(screen.getByTestId('bot-check-development-checkbox'));

    fireEvent.click(emailSubmit());
    await screen.findByText('Check your email');
    expect(screen.getByTestId('login-sent-address')).toHaveTextContent('me@example.com');
    expect(await sentPayload(fetchMock, '/login/v1/sendRegisterUserEmail')).toEqual({
      emailAddress: 'me@example.com',
      cfToken: 'development',
      returnTo: `${window.location.pathname}${window.location.search}`,
    });
  });

  it('says in its own words that a deleted account must wait 7 days', async () => {
    respondWith({ code: ApiCode.reRegisterWait, msg: 'server wording' });
    renderModal();
    openEmailStep();
    fireEvent.click(screen.getByTestId('bot-check-development-checkbox'));
    fireEvent.click(emailSubmit());
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Sorry, your account has already been deleted. You will need to wait 7 days to re-register.',
    );
  });

  it("shows the server's message when the address is refused, and asks for a new check", async () => {
    respondWith({ code: ApiCode.paramError, msg: 'emailAddress: not an e-mail address' });
    renderModal();
    openEmailStep();
    fireEvent.click(screen.getByTestId('bot-check-development-checkbox'));
    fireEvent.click(emailSubmit());
    expect(await screen.findByRole('alert')).toHaveTextContent('emailAddress: not an e-mail address');
    expect(emailInput()).toHaveValue('me@example.com');
    expect(screen.getByTestId('bot-check-development-checkbox')).not.toBeChecked();
    expect(emailSubmit()).toBeDisabled();
  });

  it('falls back to the generic message when the server gives none', async () => {
    respondWith({ code: ApiCode.botCheckFailed });
    renderModal();
    openEmailStep();
    fireEvent.click(screen.getByTestId('bot-check-development-checkbox'));
    fireEvent.click(emailSubmit());
    expect(await screen.findByRole('alert')).toHaveTextContent('We could not send the email. Please try again.');
  });

  it('waits for the web config before offering any check', () => {
    renderModal(null);
    openEmailStep();
    expect(screen.getByTestId('bot-check-loading')).toBeInTheDocument();
    expect(emailSubmit()).toBeDisabled();
  });
});

describe('step 2: e-mail with Turnstile', () => {
  it('renders the widget with the site key; Email waits while the check runs, then sends its token', async () => {
    const { turnstile, latest } = fakeTurnstile();
    const fetchMock = respondWith({ code: 200, data: true });
    renderModal(TURNSTILE);
    openEmailStep();
    await waitFor(() => expect(turnstile.render).toHaveBeenCalledTimes(1));
    expect(latest().sitekey).toBe(TURNSTILE.turnstileSiteKey);
    expect(screen.getByTestId('bot-check-running')).toHaveTextContent('Checking that you are human…');
    expect(emailSubmit()).toBeDisabled();

    act(() => latest().callback('token-from-cloudflare'));
    expect(screen.queryByTestId('bot-check-running')).not.toBeInTheDocument();
    expect(emailSubmit()).toBeEnabled();
    fireEvent.click(emailSubmit());
    await screen.findByText('Check your email');
    expect((await sentPayload(fetchMock, '/login/v1/sendRegisterUserEmail')).cfToken).toBe('token-from-cloudflare');
    // The widget is removed by the step's cleanup, which may run a tick after the text shows.
    await waitFor(() => expect(turnstile.remove).toHaveBeenCalledWith('widget-1'));
  });

  it("says 'Error occurred, please try again.' when the check fails, and retries with a new widget", async () => {
    const { turnstile, latest } = fakeTurnstile();
    renderModal(TURNSTILE);
    openEmailStep();
    await waitFor(() => expect(turnstile.render).toHaveBeenCalledTimes(1));
    let handled = false;
    act(() => {
      handled = latest()['error-callback']('300030');
    });
    expect(handled).toBe(true);
    expect(screen.getByRole('alert')).toHaveTextContent('Error occurred, please try again.');
    expect(emailSubmit()).toBeDisabled();
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(turnstile.render).toHaveBeenCalledTimes(2));
    expect(turnstile.remove).toHaveBeenCalledWith('widget-1');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('resets the widget on a timeout, and sends the marker token from an unsupported browser', async () => {
    const { turnstile, latest } = fakeTurnstile();
    const fetchMock = respondWith({ code: 200, data: true });
    renderModal(TURNSTILE);
    openEmailStep();
    await waitFor(() => expect(turnstile.render).toHaveBeenCalledTimes(1));
    act(() => latest()['timeout-callback']());
    expect(turnstile.reset).toHaveBeenCalledWith('widget-1');
    expect(emailSubmit()).toBeDisabled();

    act(() => latest()['unsupported-callback']());
    fireEvent.click(emailSubmit());
    await screen.findByText('Check your email');
    expect((await sentPayload(fetchMock, '/login/v1/sendRegisterUserEmail')).cfToken).toBe(BOT_CHECK_UNSUPPORTED_TOKEN);
  });

  it('needs a new token after the server refused the first one', async () => {
    const { turnstile, latest } = fakeTurnstile();
    respondWith({ code: ApiCode.botCheckFailed, msg: 'bot check failed' });
    renderModal(TURNSTILE);
    openEmailStep();
    await waitFor(() => expect(turnstile.render).toHaveBeenCalledTimes(1));
    act(() => latest().callback('used-token'));
    fireEvent.click(emailSubmit());
    expect(await screen.findByRole('alert')).toHaveTextContent('bot check failed');
    await waitFor(() => expect(turnstile.render).toHaveBeenCalledTimes(2));
    expect(emailSubmit()).toBeDisabled();
  });
});

describe('step 3: link sent', () => {
  it('reloads the page from its back button', async () => {
    respondWith({ code: 200, data: true });
    renderModal();
    openEmailStep();
    fireEvent.click(screen.getByTestId('bot-check-development-checkbox'));
    fireEvent.click(emailSubmit());
    await screen.findByText('Check your email');
    fireEvent.click(screen.getByTestId('login-back'));
    expect(pageNavigation.reload).toHaveBeenCalledTimes(1);
  });
});

describe('step 4: ID and password', () => {
  it('limits ID to 10 and password to 20 characters and needs both', async () => {
    respondWith({ code: ApiCode.accountPwdError });
    renderModal();
    fireEvent.click(screen.getByTestId('login-id-method'));
    const submit = screen.getByTestId('login-password-submit');
    expect(screen.getByTestId('login-id-input')).toHaveAttribute('maxLength', '10');
    expect(screen.getByTestId('login-password-input')).toHaveAttribute('maxLength', '20');
    expect(submit).toBeDisabled();
    fireEvent.change(screen.getByTestId('login-id-input'), { target: { value: 'ABCDEFGHIJKL' } });
    expect(submit).toBeDisabled();
    fireEvent.change(screen.getByTestId('login-password-input'), { target: { value: 'p'.repeat(25) } });
    expect(screen.getByTestId('login-id-input')).toHaveValue('ABCDEFGHIJ');
    expect(screen.getByTestId('login-password-input')).toHaveValue('p'.repeat(20));
    expect(submit).toBeEnabled();
    fireEvent.click(submit);
    expect(await screen.findByRole('alert')).toHaveTextContent('Incorrect username or password.');
  });

  it('shows a generic message for any other failure, and says so when there were too many attempts', async () => {
    respondWith({ code: ApiCode.notFound }, { code: ApiCode.rateLimited });
    renderModal();
    fireEvent.click(screen.getByTestId('login-id-method'));
    fireEvent.change(screen.getByTestId('login-id-input'), { target: { value: 'A1' } });
    fireEvent.change(screen.getByTestId('login-password-input'), { target: { value: 'secret' } });
    fireEvent.click(screen.getByTestId('login-password-submit'));
    expect(await screen.findByRole('alert')).toHaveTextContent('Login failed. Please try again.');
    fireEvent.click(screen.getByTestId('login-password-submit'));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Too many attempts.'));
  });

  it('ignores clicks while the request runs', async () => {
    let answer: (response: Response) => void = () => undefined;
    const logins: string[] = [];
    const fetchMock = vi.fn((url: string) => {
      if (isTelemetry(url)) return Promise.resolve(new Response('{}', { status: 204 }));
      logins.push(url);
      return new Promise<Response>((resolve) => (answer = resolve));
    });
    vi.stubGlobal('fetch', fetchMock);
    renderModal();
    fireEvent.click(screen.getByTestId('login-id-method'));
    fireEvent.change(screen.getByTestId('login-id-input'), { target: { value: 'A1' } });
    fireEvent.change(screen.getByTestId('login-password-input'), { target: { value: 'secret' } });
    fireEvent.click(screen.getByTestId('login-password-submit'));
    fireEvent.click(screen.getByTestId('login-password-submit'));
    fireEvent.submit(screen.getByTestId('login-password-submit').closest('form')!);
    await waitFor(() => expect(logins).toHaveLength(1));
    expect(screen.getByTestId('login-password-submit')).toHaveAttribute('aria-busy', 'true');
    answer(new Response('{}', { status: 500 }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Login failed. Please try again.');
    expect(logins).toEqual(['/lust/api/login/v1/userPasswordLogin']);
  });

  it("says 'Login successful', closes, and reloads the page signed in", async () => {
    const fetchMock = respondWith({ code: 200, data: { voucher: 'v', userInfo: USER } });
    renderModal();
    fireEvent.click(screen.getByTestId('login-id-method'));
    fireEvent.change(screen.getByTestId('login-id-input'), { target: { value: ' AB12CD ' } });
    fireEvent.change(screen.getByTestId('login-password-input'), { target: { value: 'secret1' } });
    fireEvent.click(screen.getByTestId('login-password-submit'));
    await waitFor(() => expect(screen.queryByTestId('login-modal')).not.toBeInTheDocument());
    expect(store.get(notificationsAtom).map((n) => [n.kind, n.message])).toContainEqual([
      'success',
      'Login successful',
    ]);
    expect(store.get(userInfoAtom)?.userNo).toBe('AB12CD');
    expect(await sentPayload(fetchMock, '/login/v1/userPasswordLogin')).toEqual({
      userNo: 'AB12CD',
      password: 'secret1',
    });
    await waitFor(() => expect(pageNavigation.reload).toHaveBeenCalledTimes(1), { timeout: 2000 });
  });
});

describe('moving between steps', () => {
  it('back buttons of steps 2 and 4 return to step 1 and clear the error', async () => {
    respondWith({ code: ApiCode.accountPwdError });
    renderModal();
    fireEvent.click(screen.getByTestId('login-id-method'));
    fireEvent.change(screen.getByTestId('login-id-input'), { target: { value: 'A1' } });
    fireEvent.change(screen.getByTestId('login-password-input'), { target: { value: 'secret' } });
    fireEvent.click(screen.getByTestId('login-password-submit'));
    await screen.findByRole('alert');
    fireEvent.click(screen.getByTestId('login-back'));
    expect(screen.getByTestId('login-step')).toHaveAttribute('data-step', '1');
    fireEvent.click(screen.getByTestId('login-email-method'));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    fireEvent.click(screen.getByTestId('login-back'));
    expect(screen.getByTestId('login-email-method')).toBeInTheDocument();
  });

  it('returns to step 1 with empty inputs, an unticked check and a new image after closing', async () => {
    renderModal();
    const firstArt = screen.getByTestId('login-art').dataset.artIndex;
    openEmailStep();
    fireEvent.click(screen.getByTestId('bot-check-development-checkbox'));
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByTestId('login-modal')).not.toBeInTheDocument());
    act(() => store.set(showLoginTipAtom, true));
    const modal = await screen.findByTestId('login-modal');
    expect(within(modal).getByTestId('login-step')).toHaveAttribute('data-step', '1');
    expect(within(modal).getByTestId('login-art').dataset.artIndex).not.toBe(firstArt);
    fireEvent.click(screen.getByTestId('login-email-method'));
    expect(emailInput()).toHaveValue('');
    expect(screen.getByTestId('bot-check-development-checkbox')).not.toBeChecked();
  });
});

describe('decorative image', () => {
  it('there are ten decorative images, and a new pick differs from the last one', () => {
    expect(LOGIN_ART).toHaveLength(10);
    expect(pickLoginArt(3, () => 0.35)).not.toBe(3);
    expect(pickLoginArt(null, () => 0.99)).toBe(9);
  });
});

import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOGIN_ART, pickLoginArt } from '@/features/auth/components/login-art';
import LoginModal, { isValidEmail } from '@/features/auth/components/login-modal';
import { ApiCode } from '@/lib/api-types';
import { showLoginTipAtom } from '@/lib/app-state';
import { decryptText, encryptText } from '@/lib/envelope-crypto';
import { store } from '@/lib/store';

function respondWith(code: number, data: unknown = null, msg = '') {
  const fetchMock = vi.fn(async (_url: string, init: RequestInit) => {
    const key = (init.headers as Record<string, string>).secretKey!;
    const plain = JSON.stringify({ code, msg, success: code === 200, data });
    return new Response(JSON.stringify({ responseData: await encryptText(key, plain) }), { status: 200 });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

function renderModal() {
  act(() => store.set(showLoginTipAtom, true));
  return render(
    <Provider store={store}>
      <MemoryRouter>
        <LoginModal />
      </MemoryRouter>
    </Provider>,
  );
}

beforeEach(() => {
  Object.defineProperty(window, 'innerWidth', { configurable: true, value: 1280 });
  Object.defineProperty(window, 'innerHeight', { configurable: true, value: 900 });
});

afterEach(() => {
  vi.unstubAllGlobals();
  act(() => store.set(showLoginTipAtom, false));
});

describe('login modal', () => {
  it('starts with the choice of methods, 567 px wide and at most screen height − 200', () => {
    renderModal();
    expect(screen.getByRole('button', { name: 'Sign in with Google' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign in with Discord' })).toBeInTheDocument();
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

  it('enables Email only for a valid address and goes to step 3 when the link is sent', async () => {
    const fetchMock = respondWith(200, true);
    renderModal();
    fireEvent.click(screen.getByTestId('login-email-method'));
    const submit = screen.getByTestId('login-email-submit');
    fireEvent.change(screen.getByTestId('login-email-input'), { target: { value: 'me@example' } });
    expect(submit).toBeDisabled();
    fireEvent.change(screen.getByTestId('login-email-input'), { target: { value: 'me@example.com' } });
    expect(submit).toBeEnabled();
    fireEvent.click(submit);
    await screen.findByText('Check your email');
    expect(screen.getByText(/me@example\.com/)).toBeInTheDocument();

    const call = fetchMock.mock.calls.find(([url]) => url === '/lust/api/login/v1/sendRegisterUserEmail');
    expect(call).toBeDefined();
    const [, init] = call!;
    const key = (init.headers as Record<string, string>).secretKey!;
    const payload = JSON.parse(await decryptText(key, JSON.parse(init.body as string).requestData));
    expect(payload).toEqual({ emailAddress: 'me@example.com', cfToken: 'unsupported-browser' });
  });

  it("shows the server's message when the e-mail is refused, and stays on the step", async () => {
    respondWith(ApiCode.reRegisterWait, null, 'This email must wait 7 days');
    renderModal();
    fireEvent.click(screen.getByTestId('login-email-method'));
    fireEvent.change(screen.getByTestId('login-email-input'), { target: { value: 'me@example.com' } });
    fireEvent.click(screen.getByTestId('login-email-submit'));
    expect(await screen.findByRole('alert')).toHaveTextContent('This email must wait 7 days');
    expect(screen.getByTestId('login-email-input')).toBeInTheDocument();
  });

  it('limits ID to 10 and password to 20 characters and needs both', async () => {
    respondWith(ApiCode.accountPwdError);
    renderModal();
    fireEvent.click(screen.getByTestId('login-id-method'));
    const submit = screen.getByTestId('login-password-submit');
    expect(submit).toBeDisabled();
    fireEvent.change(screen.getByTestId('login-id-input'), { target: { value: 'ABCDEFGHIJKL' } });
    fireEvent.change(screen.getByTestId('login-password-input'), { target: { value: 'p'.repeat(25) } });
    expect(screen.getByTestId('login-id-input')).toHaveValue('ABCDEFGHIJ');
    expect(screen.getByTestId('login-password-input')).toHaveValue('p'.repeat(20));
    expect(submit).toBeEnabled();
    fireEvent.click(submit);
    expect(await screen.findByRole('alert')).toHaveTextContent('Incorrect username or password.');
  });

  it('shows a generic message for any other password-login failure, e.g. notFound', async () => {
    respondWith(ApiCode.notFound);
    renderModal();
    fireEvent.click(screen.getByTestId('login-id-method'));
    fireEvent.change(screen.getByTestId('login-id-input'), { target: { value: 'A1' } });
    fireEvent.change(screen.getByTestId('login-password-input'), { target: { value: 'secret' } });
    fireEvent.click(screen.getByTestId('login-password-submit'));
    expect(await screen.findByRole('alert')).toHaveTextContent('Login failed. Please try again.');
  });

  it('returns to step 1 with empty inputs when closed and opened again', async () => {
    renderModal();
    fireEvent.click(screen.getByTestId('login-email-method'));
    fireEvent.change(screen.getByTestId('login-email-input'), { target: { value: 'me@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByTestId('login-modal')).not.toBeInTheDocument());
    act(() => store.set(showLoginTipAtom, true));
    expect(await screen.findByTestId('login-email-method')).toBeInTheDocument();
    fireEvent.click(screen.getByTestId('login-email-method'));
    expect(screen.getByTestId('login-email-input')).toHaveValue('');
  });

  it('back buttons of steps 2 and 4 return to step 1', () => {
    renderModal();
    fireEvent.click(screen.getByTestId('login-id-method'));
    fireEvent.click(screen.getByTestId('login-back'));
    expect(screen.getByTestId('login-email-method')).toBeInTheDocument();
  });
});

describe('decorative images', () => {
  it('are ten, and a new pick differs from the last one', () => {
    expect(LOGIN_ART).toHaveLength(10);
    expect(pickLoginArt(3, () => 0.35)).not.toBe(3);
    expect(pickLoginArt(null, () => 0.99)).toBe(9);
  });
});

describe('email pattern', () => {
  it('accepts standard addresses and rejects others', () => {
    expect(isValidEmail('a.b+c@mail.example.org')).toBe(true);
    expect(isValidEmail('no-at-sign.com')).toBe(false);
    expect(isValidEmail('two@@example.com')).toBe(false);
    expect(isValidEmail('spaces in@example.com')).toBe(false);
  });
});

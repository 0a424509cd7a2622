import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Provider } from 'jotai';
import { createMemoryRouter, MemoryRouter, RouterProvider } from 'react-router';
import { RootLayout } from '@/app/root-layout';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { gettingUserAtom, notificationsAtom, showLoginTipAtom, store, userInfoAtom } from '@/app/store';
import type { UserDetail } from '@/features/settings/api/account';
import { confirmsDeletion } from '@/features/settings/components/delete-account-section';
import { passwordProblem } from '@/features/settings/components/password-section';
import { isValidUserName } from '@/features/settings/components/profile-section';
import SettingsPage from '@/features/settings/components/settings-page';
import { ApiCode } from '@/lib/api-types';
import { decryptText, encryptText } from '@/lib/envelope-crypto';
import { pageNavigation } from '@/lib/page-navigation';

const DETAIL: UserDetail = {
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
  language: 'en',
  hasPassword: false,
  googleLinked: false,
  discordLinked: false,
  createdAt: 1_700_000_000,
};

type Reply = { code: number; data?: unknown; msg?: string };

/** What the page reads besides the account when a test does not say: no personas yet. */
const DEFAULT_ROUTES: Record<string, Reply> = { '/user/v1/persona/getPersonaList': { code: 200, data: [] } };

/** Answers by endpoint; records every decrypted payload. */
function serve(routes: Record<string, Reply | Reply[]>) {
  const sent: { path: string; payload: unknown }[] = [];
  const counters: Record<string, number> = {};
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = url.replace('/lust/api', '').split('?')[0]!;
      const key = (init.headers as Record<string, string>).secretKey!;
      if (init.body)
        sent.push({ path, payload: JSON.parse(await decryptText(key, JSON.parse(init.body as string).requestData)) });
      const route = routes[path] ?? DEFAULT_ROUTES[path] ?? { code: 200, data: true };
      const list = Array.isArray(route) ? route : [route];
      const n = (counters[path] = (counters[path] ?? 0) + 1);
      const { code, data = null, msg = '' } = list[Math.min(n - 1, list.length - 1)]!;
      const plain = JSON.stringify({ code, msg, success: code === 200, data });
      return new Response(JSON.stringify({ responseData: await encryptText(key, plain) }), { status: 200 });
    }),
  );
  return sent;
}

function renderPage({ signedIn = true } = {}) {
  act(() => {
    store.set(gettingUserAtom, false);
    store.set(userInfoAtom, signedIn ? DETAIL : null);
  });
  return render(
    <Provider store={store}>
      <MemoryRouter initialEntries={['/setting']}>
        <SettingsPage />
      </MemoryRouter>
    </Provider>,
  );
}

beforeEach(() => {
  vi.spyOn(pageNavigation, 'assign').mockImplementation(() => undefined);
});

afterEach(() => {
  vi.unstubAllGlobals();
  act(() => {
    store.set(userInfoAtom, null);
    store.set(gettingUserAtom, true);
    store.set(showLoginTipAtom, false);
    store.set(notificationsAtom, []);
  });
});

describe('settings screen', () => {
  it('asks a signed-out visitor to sign in', () => {
    serve({});
    renderPage({ signedIn: false });
    const card = screen.getByTestId('settings-signed-out');
    fireEvent.click(within(card).getByRole('button', { name: 'Sign in' }));
    expect(store.get(showLoginTipAtom)).toBe(true);
  });

  it('shows the ID to log in with, and the sign-in methods of the account', async () => {
    serve({ '/user/v1/getOwnUserInfoDetail': { code: 200, data: DETAIL } });
    renderPage();
    expect(await screen.findByTestId('settings-user-no')).toHaveTextContent('AB12CD');
    const email = document.querySelector('[data-method="email"]')!;
    expect(email).toHaveAttribute('data-on', 'true');
    expect(email).toHaveTextContent('mira@example.com');
    expect(document.querySelector('[data-method="password"]')).toHaveAttribute('data-on', 'false');
  });

  it('offers a free user the plans, and a member the subscription and tokens, following the user live', async () => {
    serve({ '/user/v1/getOwnUserInfoDetail': { code: 200, data: DETAIL } });
    renderPage();
    const plan = await screen.findByTestId('settings-plan');
    expect(within(plan).getByTestId('settings-upgrade')).toHaveAttribute('href', '/pricing');
    // The account's details are in (a late answer would undo the change below: the full
    // suite on two busy cores saw it).
    await screen.findByTestId('settings-user-no');
    act(() => store.set(userInfoAtom, { ...DETAIL, userVipType: 1, coin: 1000 }));
    expect(plan).toHaveTextContent('Balance: 100 tokens');
    expect(within(plan).getByTestId('settings-manage-plan')).toHaveAttribute('href', '/subscriptionmanage');
    expect(within(plan).getByRole('link', { name: 'Buy Tokens' })).toHaveAttribute('href', '/buytokens');
  });

  it('sets a first password without an old one, then asks for the old one to change it', async () => {
    const sent = serve({
      '/user/v1/getOwnUserInfoDetail': { code: 200, data: DETAIL },
      '/user/v1/updateUserPassword': [
        { code: 200, data: true },
        { code: ApiCode.accountPwdError, msg: 'wrong' },
      ],
    });
    renderPage();
    const section = await screen.findByTestId('settings-password');
    expect(within(section).getByRole('heading')).toHaveTextContent('Set a password');
    expect(screen.queryByTestId('settings-old-password')).not.toBeInTheDocument();
    const save = screen.getByTestId('settings-password-save');

    fireEvent.change(screen.getByTestId('settings-new-password'), { target: { value: 'abc' } });
    expect(save).toBeDisabled();
    expect(section).toHaveTextContent('The password must be 6 to 20 characters long.');
    fireEvent.change(screen.getByTestId('settings-new-password'), { target: { value: 'secret-1' } });
    fireEvent.change(screen.getByTestId('settings-confirm-password'), { target: { value: 'secret-2' } });
    expect(section).toHaveTextContent('The passwords do not match.');
    expect(save).toBeDisabled();
    fireEvent.change(screen.getByTestId('settings-confirm-password'), { target: { value: 'secret-1' } });
    expect(save).toBeEnabled();
    fireEvent.click(save);

    await waitFor(() => expect(within(section).getByRole('heading')).toHaveTextContent('Change password'));
    expect(sent.find((s) => s.path === '/user/v1/updateUserPassword')?.payload).toEqual({ newPassword: 'secret-1' });
    expect(store.get(notificationsAtom).map((n) => n.message)).toContain(
      'Password set. You can now log in with your ID and password.',
    );
    expect(screen.getByTestId('settings-new-password')).toHaveValue('');

    fireEvent.change(screen.getByTestId('settings-old-password'), { target: { value: 'not-it' } });
    fireEvent.change(screen.getByTestId('settings-new-password'), { target: { value: 'secret-3' } });
    fireEvent.change(screen.getByTestId('settings-confirm-password'), { target: { value: 'secret-3' } });
    fireEvent.click(screen.getByTestId('settings-password-save'));
    expect(await within(section).findByRole('alert')).toHaveTextContent('Your current password is incorrect.');
    expect(sent.filter((s) => s.path === '/user/v1/updateUserPassword')[1]?.payload).toEqual({
      oldPassword: 'not-it',
      newPassword: 'secret-3',
    });
  });

  it('saves a new name and shows it in the header state', async () => {
    const sent = serve({
      '/user/v1/getOwnUserInfoDetail': { code: 200, data: DETAIL },
      '/user/v1/updateUserInfo': { code: 200, data: { ...DETAIL, userName: 'Mira Rose' } },
    });
    renderPage();
    const input = await screen.findByTestId('settings-name-input');
    expect(screen.getByTestId('settings-name-save')).toBeDisabled();
    fireEvent.change(input, { target: { value: '   ' } });
    expect(screen.getByTestId('settings-name-save')).toBeDisabled();
    fireEvent.change(input, { target: { value: '  Mira Rose ' } });
    fireEvent.click(screen.getByTestId('settings-name-save'));
    await waitFor(() => expect(store.get(userInfoAtom)?.userName).toBe('Mira Rose'));
    expect(sent.find((s) => s.path === '/user/v1/updateUserInfo')?.payload).toEqual({ userName: 'Mira Rose' });
  });

  it('deletes the account only after the ID is typed back, then goes home signed out', async () => {
    const sent = serve({ '/user/v1/getOwnUserInfoDetail': { code: 200, data: DETAIL } });
    renderPage();
    fireEvent.click(await screen.findByTestId('settings-delete-open'));
    const dialog = screen.getByTestId('delete-account-dialog');
    expect(dialog).toHaveTextContent("Your email can't be used to register again for 7 days.");
    const confirm = within(dialog).getByTestId('delete-confirm');
    expect(confirm).toBeDisabled();
    fireEvent.change(within(dialog).getByTestId('delete-confirm-input'), { target: { value: 'AB12C' } });
    expect(confirm).toBeDisabled();
    fireEvent.submit(confirm.closest('form')!);
    expect(sent.some((s) => s.path === '/user/v1/deleteUser')).toBe(false);

    fireEvent.change(within(dialog).getByTestId('delete-confirm-input'), { target: { value: 'ab12cd' } });
    expect(confirm).toBeEnabled();
    fireEvent.click(confirm);
    await waitFor(() => expect(pageNavigation.assign).toHaveBeenCalledWith('/?accountDeleted=1'));
    expect(sent.filter((s) => s.path === '/user/v1/deleteUser')).toHaveLength(1);
  });

  it('cancelling the deletion keeps the account', async () => {
    const sent = serve({ '/user/v1/getOwnUserInfoDetail': { code: 200, data: DETAIL } });
    renderPage();
    fireEvent.click(await screen.findByTestId('settings-delete-open'));
    fireEvent.click(within(screen.getByTestId('delete-account-dialog')).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByTestId('delete-account-dialog')).not.toBeInTheDocument());
    expect(sent.some((s) => s.path === '/user/v1/deleteUser')).toBe(false);
  });
});

describe('settings rules', () => {
  it('a name is 1–30 characters once trimmed', () => {
    expect(isValidUserName('a')).toBe(true);
    expect(isValidUserName('x'.repeat(30))).toBe(true);
    expect(isValidUserName('x'.repeat(31))).toBe(false);
    expect(isValidUserName('   ')).toBe(false);
  });

  it('a password is 6–20 characters, repeated, with the old one once one exists', () => {
    const form = { oldPassword: '', newPassword: 'secret', confirm: 'secret' };
    expect(passwordProblem(form, false)).toBeNull();
    expect(passwordProblem(form, true)).toBe('oldRequired');
    expect(passwordProblem({ ...form, oldPassword: 'old' }, true)).toBeNull();
    expect(passwordProblem({ ...form, newPassword: '12345', confirm: '12345' }, false)).toBe('length');
    expect(passwordProblem({ ...form, newPassword: 'x'.repeat(21), confirm: 'x'.repeat(21) }, false)).toBe('length');
    expect(passwordProblem({ ...form, confirm: 'secreT' }, false)).toBe('mismatch');
  });

  it('deletion is confirmed by the ID, in any letter case', () => {
    expect(confirmsDeletion(' ab12cd ', 'AB12CD')).toBe(true);
    expect(confirmsDeletion('AB12C', 'AB12CD')).toBe(false);
    expect(confirmsDeletion('', '')).toBe(false);
  });
});

/** The settings screen under the real root layout, which shows the age confirmation when asked. */
function renderInLayout() {
  act(() => {
    store.set(gettingUserAtom, false);
    store.set(userInfoAtom, DETAIL);
  });
  const router = createMemoryRouter(
    [{ element: <RootLayout />, children: [{ path: 'setting', element: <SettingsPage /> }] }],
    {
      initialEntries: ['/setting'],
    },
  );
  return render(
    <Provider store={store}>
      <RouterProvider router={router} />
    </Provider>,
  );
}

describe('adult content switch', () => {
  it('asks for the 18+ confirmation first when this browser never gave it', async () => {
    const sent = serve({ '/user/v1/getOwnUserInfoDetail': { code: 200, data: DETAIL } });
    window.localStorage.setItem('eighteenTipShow', 'false');
    renderInLayout();
    const toggle = await screen.findByTestId('settings-nsfw');
    // The stored confirmation is gone (storage cleared since the page opened).
    window.localStorage.removeItem('eighteenTipShow');
    expect(toggle).toHaveAttribute('aria-checked', 'false');

    fireEvent.click(toggle);
    const gate = await screen.findByTestId('age-gate');
    expect(toggle).toHaveAttribute('aria-checked', 'false');
    expect(sent.some((s) => s.path === '/user/v1/updateWebData')).toBe(false);

    fireEvent.click(within(gate).getByRole('button', { name: 'Close' }));
    expect(screen.queryByTestId('age-gate')).not.toBeInTheDocument();
    expect(toggle).toHaveAttribute('aria-checked', 'false');

    fireEvent.click(toggle);
    fireEvent.click(await screen.findByTestId('age-gate-confirm'));
    await waitFor(() => expect(toggle).toHaveAttribute('aria-checked', 'true'));
    expect(window.localStorage.getItem('eighteenTipShow')).toBe('false');
    expect(window.localStorage.getItem('localNSFW')).toBe('true');
    await waitFor(() => expect(sent.find((s) => s.path === '/user/v1/updateWebData')?.payload).toEqual({ nsfw: true }));
  });

  it('turns on at once once the age was confirmed, and off without asking', async () => {
    window.localStorage.setItem('eighteenTipShow', 'false');
    serve({ '/user/v1/getOwnUserInfoDetail': { code: 200, data: DETAIL } });
    renderPage();
    const toggle = await screen.findByTestId('settings-nsfw');
    fireEvent.click(toggle);
    await waitFor(() => expect(toggle).toHaveAttribute('aria-checked', 'true'));
    expect(screen.queryByTestId('age-gate')).not.toBeInTheDocument();
    await waitFor(() => expect(toggle).toBeEnabled());
    fireEvent.click(toggle);
    await waitFor(() => expect(toggle).toHaveAttribute('aria-checked', 'false'));
    expect(window.localStorage.getItem('localNSFW')).toBe('false');
  });
});

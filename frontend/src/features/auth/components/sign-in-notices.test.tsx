import { act, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { notificationsAtom, store } from '@/app/store';
import { ACCOUNT_DELETED_NOTICE_DELAY_MS, SignInNotices } from '@/features/auth/components/sign-in-notices';

function Where() {
  const { pathname, search } = useLocation();
  return <output data-testid="where">{`${pathname}${search}`}</output>;
}

function land(url: string) {
  return render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[url]}>
        <SignInNotices />
        <Where />
      </MemoryRouter>
    </Provider>,
  );
}

const shown = () => store.get(notificationsAtom).map((n) => [n.kind, n.message]);

afterEach(() => {
  vi.useRealTimers();
  act(() => store.set(notificationsAtom, []));
});

describe('sign-in notices on the landing URL', () => {
  it.each([
    ['/?signInLinkExpired=1', 'error', 'This sign-in link has expired or was already used. Please request a new one.'],
    ['/?signInFailed=1', 'error', 'Sign-in failed. Please try again.'],
    ['/?signInUnavailable=google', 'warning', 'Sign-in with Google is not available on this site.'],
    ['/?signInUnavailable=discord', 'warning', 'Sign-in with Discord is not available on this site.'],
    ['/?accountDeleted=1', 'success', 'Your account has been deleted.'],
  ])('%s shows one %s notification and leaves the URL clean', async (url, kind, message) => {
    land(url);
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent(/^\/$/));
    expect(shown()).toEqual([[kind, message]]);
  });

  it('keeps the path and other parameters', async () => {
    land('/de/ai-boyfriend?signInFailed=1&utm_source=x');
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/de/ai-boyfriend?utm_source=x'));
    expect(shown()).toHaveLength(1);
  });

  it('shows the deleted-account message after 1 s, then returns to the home page', () => {
    vi.useFakeTimers();
    land('/de/ai-boyfriend?showNoAccountError=1');
    act(() => vi.advanceTimersByTime(ACCOUNT_DELETED_NOTICE_DELAY_MS - 10));
    expect(shown()).toEqual([]);
    act(() => vi.advanceTimersByTime(20));
    expect(shown()).toEqual([
      ['error', 'Sorry, your account has already been deleted. You will need to wait 7 days to re-register.'],
    ]);
    expect(screen.getByTestId('where')).toHaveTextContent(/^\/de\/$/);
  });

  it('does nothing without a flag', () => {
    vi.useFakeTimers();
    land('/?utm_source=x');
    act(() => vi.advanceTimersByTime(2000));
    expect(shown()).toEqual([]);
    expect(screen.getByTestId('where')).toHaveTextContent('/?utm_source=x');
  });
});

import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Provider } from 'jotai';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RootLayout } from '@/app/root-layout';
import { store } from '@/app/store';
import { i18n } from '@/lib/i18n';

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

function Page({ name }: { name: string }) {
  const { pathname } = useLocation();
  return (
    <main data-testid="page" data-path={pathname}>
      {name}
    </main>
  );
}

/** The real root layout over stand-in screens, so only the layout's own rules are under test. */
function renderAt(path: string) {
  const router = createMemoryRouter(
    [
      {
        element: <RootLayout />,
        children: [
          { index: true, element: <Page name="home" /> },
          { path: 'privacyPolicyForApp', element: <Page name="app privacy" /> },
          { path: ':lng', children: [{ index: true, element: <Page name="localized home" /> }] },
        ],
      },
    ],
    { initialEntries: [path] },
  );
  render(
    <Provider store={store}>
      <RouterProvider router={router} />
    </Provider>,
  );
  return router;
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the age gate', () => {
  it('stands in front of the page on a first visit, opens the policies stacked over it, and lets the visitor in', async () => {
    renderAt('/');
    const gate = await screen.findByTestId('age-gate');
    expect(screen.queryByTestId('page')).not.toBeInTheDocument();
    expect(within(gate).getByRole('heading', { name: 'Adults only (18+)' })).toBeInTheDocument();

    fireEvent.click(within(gate).getByTestId('age-gate-open-termsOfUse'));
    const terms = await screen.findByTestId('legal-dialog');
    expect(screen.getAllByRole('dialog')).toHaveLength(2);
    expect(within(terms).getByRole('heading', { name: 'Terms of Use' })).toBeInTheDocument();
    // Inside a dialog the policy names are not links that would navigate away.
    expect(within(terms).queryByRole('link', { name: 'Privacy Policy' })).not.toBeInTheDocument();
    expect(within(terms).getAllByText('Privacy Policy')[0]?.tagName).toBe('STRONG');
    fireEvent.keyDown(document, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('legal-dialog')).not.toBeInTheDocument());
    expect(screen.getByTestId('age-gate')).toBeInTheDocument();

    fireEvent.click(screen.getByTestId('age-gate-confirm'));
    expect(await screen.findByTestId('page')).toHaveTextContent('home');
    expect(screen.queryByTestId('age-gate')).not.toBeInTheDocument();
    expect(window.localStorage.getItem('eighteenTipShow')).toBe('false');
  });

  it('does not come back once confirmed', async () => {
    window.localStorage.setItem('eighteenTipShow', 'false');
    renderAt('/');
    expect(await screen.findByTestId('page')).toHaveTextContent('home');
    expect(screen.queryByTestId('age-gate')).not.toBeInTheDocument();
  });

  it('sends a visitor who declines off the site', async () => {
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, assign });
    renderAt('/');
    fireEvent.click(await screen.findByTestId('age-gate-decline'));
    expect(assign).toHaveBeenCalledWith('https://www.google.com/');
    expect(screen.queryByTestId('page')).not.toBeInTheDocument();
  });

  it('lets crawlers through', async () => {
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(GOOGLEBOT);
    renderAt('/');
    expect(await screen.findByTestId('page')).toHaveTextContent('home');
  });

  it('does not block /privacyPolicyForApp', async () => {
    renderAt('/privacyPolicyForApp');
    expect(await screen.findByTestId('page')).toHaveTextContent('app privacy');
  });
});

describe('the remembered language', () => {
  it('sends / to the language picked before', async () => {
    window.localStorage.setItem('eighteenTipShow', 'false');
    window.localStorage.setItem('language', 'fr');
    vi.spyOn(i18n, 'changeLanguage').mockResolvedValue(i18n.t);
    const router = renderAt('/');
    await waitFor(() => expect(router.state.location.pathname).toBe('/fr/'));
    expect(await screen.findByTestId('page')).toHaveTextContent('localized home');
  });

  it('keeps / in English without a remembered choice', async () => {
    window.localStorage.setItem('eighteenTipShow', 'false');
    const router = renderAt('/');
    expect(await screen.findByTestId('page')).toHaveTextContent('home');
    expect(router.state.location.pathname).toBe('/');
  });
});

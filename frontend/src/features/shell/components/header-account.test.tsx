import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_WEB_CONFIG,
  gettingUserAtom,
  globalWebConfigAtom,
  store,
  userInfoAtom,
  vipDataAtom,
} from '@/app/store';
import { HeaderAccount } from '@/features/shell/components/header-account';
import { serveApi, VIP_DATA } from '@/test/fake-api';
import { aUser } from '@/test/fixtures';

const PAID = aUser({ userVipType: 1, coin: 500 });

function renderHeader() {
  return render(
    <Provider store={store}>
      <MemoryRouter>
        <HeaderAccount compact={false} />
      </MemoryRouter>
    </Provider>,
  );
}

beforeEach(() => {
  serveApi({ '/user/v1/getVipData': { code: 200, data: VIP_DATA } });
  store.set(vipDataAtom, null);
  store.set(gettingUserAtom, false);
  store.set(globalWebConfigAtom, DEFAULT_WEB_CONFIG);
});

afterEach(() => {
  store.set(userInfoAtom, null);
});

describe('HeaderAccount', () => {
  it('shows a paid user the balance divided by 10, and follows the user atom without a reload', () => {
    store.set(userInfoAtom, PAID);
    renderHeader();
    expect(screen.getByTestId('token-balance')).toHaveTextContent(/^50$/);
    // What a tokenCount refetch does from outside React.
    act(() => store.set(userInfoAtom, { ...PAID, coin: 1235 }));
    expect(screen.getByTestId('token-balance')).toHaveTextContent(/^123\.5$/);
    expect(screen.queryByTestId('promo-link')).toBeNull();
  });

  it('lists the voice and image costs of the web config, divided by 10', () => {
    store.set(userInfoAtom, PAID);
    renderHeader();
    fireEvent.click(screen.getByTestId('token-balance'));
    const popover = screen.getByRole('dialog', { name: 'Token balance' });
    // The defaults: voice 2, image 20.
    expect(popover).toHaveTextContent('Voice message: 0.2 tokens');
    expect(popover).toHaveTextContent('Image: 2 tokens');
    act(() =>
      store.set(globalWebConfigAtom, { ...DEFAULT_WEB_CONFIG, defaultEnergy: { genVoiceCoin: 5, genPictureCoin: 30 } }),
    );
    expect(popover).toHaveTextContent('Voice message: 0.5 tokens');
    expect(popover).toHaveTextContent('Image: 3 tokens');
    expect(screen.getByRole('link', { name: 'Get more tokens' })).toHaveAttribute('href', '/buytokens');
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('shows the promo instead of a balance when the user becomes free, or is signed out', () => {
    store.set(userInfoAtom, { ...PAID, userVipType: 0 });
    renderHeader();
    expect(screen.queryByTestId('token-balance')).toBeNull();
    expect(screen.getByTestId('promo-link')).toBeInTheDocument();
    act(() => store.set(userInfoAtom, PAID));
    expect(screen.getByTestId('token-balance')).toHaveTextContent('50');
    act(() => store.set(userInfoAtom, null));
    expect(screen.queryByTestId('token-balance')).toBeNull();
    expect(screen.getByTestId('sign-in')).toBeInTheDocument();
  });

  it('offers the short list of packages (coin_1, coin_3, coin_5) in the balance popover', async () => {
    store.set(userInfoAtom, PAID);
    renderHeader();
    fireEvent.click(screen.getByTestId('token-balance'));
    const list = await screen.findByTestId('balance-packages');
    const links = within(list).getAllByRole('link');
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['/pay/coin_1', '/pay/coin_3', '/pay/coin_5']);
    expect(links[0]).toHaveTextContent('100 tokens');
    expect(links[0]).toHaveTextContent('$9.99');
    expect(links[2]).toHaveTextContent('2500 tokens');
  });
});

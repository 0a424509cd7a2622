import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gettingUserAtom, showLoginTipAtom, store, userInfoAtom, userInfoFetchedAtom, vipDataAtom } from '@/app/store';
import BuyTokensPage from '@/features/payments/components/buy-tokens-page';
import PricingPage from '@/features/payments/components/pricing-page';
import { accountGate } from '@/features/payments/hooks/use-account-gate';
import type { UserInfo } from '@/lib/api-types';
import { serveApi, VIP_DATA } from '@/test/fake-api';
import payments from '../../../../public/locales/en/payments.json';
import { aUser } from '@/test/fixtures';

const FREE = aUser();
const PAID = aUser({ userVipType: 1, coin: 1235 });

function Where() {
  return <span data-testid="where">{useLocation().pathname}</span>;
}

function renderAt(path: string, user: UserInfo | null, { narrow = false } = {}) {
  serveApi({ '/user/v1/getVipData': { code: 200, data: VIP_DATA } });
  // jsdom has no matchMedia; the page asks for the ≤ 1024 px layout.
  vi.stubGlobal(
    'matchMedia',
    (query: string) =>
      ({
        matches: narrow && query.includes('max-width: 1024px'),
        media: query,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
      }) as unknown as MediaQueryList,
  );
  act(() => {
    store.set(vipDataAtom, null);
    store.set(userInfoAtom, user);
    store.set(gettingUserAtom, false);
    store.set(userInfoFetchedAtom, true);
    store.set(showLoginTipAtom, false);
  });
  return render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/pricing" element={<PricingPage />} />
          <Route path="/buytokens" element={<BuyTokensPage />} />
          <Route path="*" element={null} />
        </Routes>
        <Where />
      </MemoryRouter>
    </Provider>,
  );
}

afterEach(() => {
  store.set(userInfoAtom, null);
});

describe('/pricing', () => {
  it('shows the three plans with price, struck-through original, per-month figure, discount and what they include', async () => {
    renderAt('/pricing', FREE);
    const cards = await screen.findAllByTestId('plan-card');
    expect(cards.map((c) => c.dataset.productId)).toEqual(['month_1', 'quarter_1', 'year_1']);
    const year = within(cards[2]!);
    expect(year.getByTestId('plan-price')).toHaveTextContent('$71.99');
    expect(year.getByTestId('plan-original-price')).toHaveTextContent('$239.88');
    expect(year.getByTestId('plan-per-month')).toHaveTextContent('$6.00 / month');
    expect(year.getByTestId('plan-discount')).toHaveTextContent('70% OFF');
    expect(year.getByText(payments.pricing.bestDeal)).toBeInTheDocument();
    // 15000 coins a year, shown divided by 10.
    expect(cards[2]).toHaveTextContent('1500 tokens every year');
    expect(cards[0]).toHaveTextContent('100 tokens every month');
    expect(cards[0]).toHaveTextContent(payments.pricing.unlimitedMessages);
    expect(cards[0]).toHaveTextContent(payments.pricing.premiumCharacters);
    expect(year.getByTestId('choose-plan')).toHaveAttribute('href', '/pay/year_1');
    expect(screen.getByTestId('pricing-discount')).toHaveTextContent('Up to 70% OFF');
    expect(screen.getByTestId('pricing-countdown')).toHaveAttribute('role', 'timer');
  });

  it('lists the payment methods, the sandbox as a test in which no money moves, and five questions', async () => {
    renderAt('/pricing', FREE);
    const methods = await screen.findByTestId('payment-methods');
    expect([...methods.querySelectorAll('li')].map((li) => li.dataset.route)).toEqual([
      'sandbox',
      'paypal',
      'nowpayments',
    ]);
    expect(within(methods).getByTestId('test-payment-badge')).toHaveTextContent(payments.testBadge);
    expect(methods).toHaveTextContent(payments.routeNotes.sandbox);
    expect(within(screen.getByTestId('pricing-faq')).getAllByRole('button')).toHaveLength(5);
  });

  it('opens the login prompt for a signed-out visitor, on arrival and when a plan is chosen', async () => {
    renderAt('/pricing', null);
    const cards = await screen.findAllByTestId('plan-card');
    expect(store.get(showLoginTipAtom)).toBe(true);
    act(() => store.set(showLoginTipAtom, false));
    fireEvent.click(within(cards[0]!).getByTestId('choose-plan'));
    expect(store.get(showLoginTipAtom)).toBe(true);
    expect(screen.getByTestId('where')).toHaveTextContent('/pricing');
  });

  it('tells a paid user where to manage the plan and buy tokens, without the promo clock', async () => {
    renderAt('/pricing', PAID);
    await screen.findAllByTestId('plan-card');
    expect(screen.getByTestId('pricing-have-plan')).toBeInTheDocument();
    expect(screen.queryByTestId('pricing-countdown')).toBeNull();
  });
});

describe('/buytokens', () => {
  // Issue 30: free users could not buy a token pack at all (they were sent to /pricing).
  // Spec §1: "Message credits, memberships and coins can be bought"; only the menu's Buy
  // Tokens entry is for paid users.
  it('sells a free user the packages too, with the plans named beside them', async () => {
    renderAt('/buytokens', { ...FREE, coin: 0 });
    const packs = await screen.findAllByTestId('coin-package');
    expect(screen.getByTestId('where')).toHaveTextContent('/buytokens');
    expect(packs).toHaveLength(6);
    expect(within(packs[2]!).getByTestId('buy-package')).toHaveAttribute('href', '/pay/coin_3');
    expect(screen.getByTestId('buy-tokens-balance')).toHaveTextContent('0 tokens');
    expect(within(screen.getByTestId('buy-tokens-free')).getByRole('link')).toHaveAttribute('href', '/pricing');
  });

  it('is linked from the plans for a free user', async () => {
    renderAt('/pricing', FREE);
    await screen.findAllByTestId('plan-card');
    expect(within(screen.getByTestId('pricing-buy-tokens')).getByRole('link')).toHaveAttribute('href', '/buytokens');
  });

  it('asks a signed-out visitor to sign in', () => {
    renderAt('/buytokens', null);
    expect(screen.getByTestId('payments-signed-out')).toBeInTheDocument();
    expect(store.get(showLoginTipAtom)).toBe(true);
  });

  it('shows a paid user the six packages, coins ÷ 10, prices and the best-value mark', async () => {
    renderAt('/buytokens', PAID);
    const packs = await screen.findAllByTestId('coin-package');
    expect(packs.map((p) => p.dataset.productId)).toEqual(['coin_1', 'coin_2', 'coin_3', 'coin_4', 'coin_5', 'coin_6']);
    expect(packs[0]).toHaveTextContent('100 tokens');
    expect(packs[0]).toHaveTextContent('$9.99');
    expect(within(packs[5]!).getByTestId('best-value')).toBeInTheDocument();
    expect(screen.getAllByTestId('best-value')).toHaveLength(1);
    expect(within(packs[2]!).getByTestId('buy-package')).toHaveAttribute('href', '/pay/coin_3');
    expect(screen.getByTestId('buy-tokens-balance')).toHaveTextContent('123.5 tokens');
  });

  it('starts with the short list coin_1, coin_3, coin_5 on narrow screens', async () => {
    renderAt('/buytokens', PAID, { narrow: true });
    const packs = await screen.findAllByTestId('coin-package');
    expect(packs.map((p) => p.dataset.productId)).toEqual(['coin_1', 'coin_3', 'coin_5']);
    fireEvent.click(screen.getByTestId('show-all-packages'));
    expect(screen.getAllByTestId('coin-package')).toHaveLength(6);
  });
});

describe('accountGate', () => {
  it('waits for user info, then tells signed-out, free and paid apart', () => {
    expect(accountGate(false, true, null)).toBe('checking');
    expect(accountGate(true, true, null)).toBe('checking');
    expect(accountGate(true, false, null)).toBe('signedOut');
    expect(accountGate(true, false, FREE)).toBe('free');
    expect(accountGate(true, false, PAID)).toBe('paid');
    // A refetch in flight keeps the known user.
    expect(accountGate(true, true, PAID)).toBe('paid');
  });
});

import { act, render, screen, within } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { gettingUserAtom, showLoginTipAtom, store, userInfoAtom, userInfoFetchedAtom, vipDataAtom } from '@/app/store';
import OrderHistoryPage from '@/features/payments/components/order-history-page';
import type { OrderEntry, UserInfo } from '@/lib/api-types';
import { serveApi, VIP_DATA } from '@/test/fake-api';
import payments from '../../../../public/locales/en/payments.json';
import { aUser } from '@/test/fixtures';

const ORDERS: OrderEntry[] = [
  {
    flowId: 'ord_3',
    productId: 'month_1',
    route: 'paypal',
    status: 'pending',
    amount: '12.99',
    currency: 'USD',
    createdAt: 1_790_000_300,
    updatedAt: 1_790_000_300,
    final: false,
    refunded: '0.00',
  },
  {
    flowId: 'ord_2',
    productId: 'coin_1',
    route: 'sandbox',
    status: 'refunded',
    amount: '9.99',
    currency: 'USD',
    createdAt: 1_790_000_200,
    updatedAt: 1_790_000_250,
    final: true,
    refunded: '3.33',
  },
  {
    flowId: 'ord_1',
    productId: 'coin_3',
    route: 'nowpayments',
    status: 'paid',
    amount: '49.99',
    currency: 'USD',
    createdAt: 1_790_000_100,
    updatedAt: 1_790_000_100,
    final: true,
    refunded: '0.00',
  },
];

function renderPage(user: UserInfo | null, orders: OrderEntry[] | null) {
  const api = serveApi({
    '/user/v1/getVipData': { code: 200, data: VIP_DATA },
    '/user/v1/payment/getUserOrderList': orders ? { code: 200, data: orders } : { code: 50000, msg: 'down' },
  });
  act(() => {
    store.set(vipDataAtom, null);
    store.set(userInfoAtom, user);
    store.set(gettingUserAtom, false);
    store.set(userInfoFetchedAtom, true);
    store.set(showLoginTipAtom, false);
  });
  render(
    <Provider store={store}>
      <MemoryRouter initialEntries={['/orders']}>
        <Routes>
          <Route path="/orders" element={<OrderHistoryPage />} />
        </Routes>
      </MemoryRouter>
    </Provider>,
  );
  return api;
}

afterEach(() => store.set(userInfoAtom, null));

// Issue 30: there was no order history in the app.
describe('/orders', () => {
  it('lists the orders newest first with date, item, amount, method, state and refunds', async () => {
    renderPage(aUser(), ORDERS);
    const rows = await screen.findAllByTestId('order');
    expect(rows.map((row) => row.dataset.orderId)).toEqual(['ord_3', 'ord_2', 'ord_1']);
    expect(rows[0]).toHaveTextContent(payments.products.month_1);
    expect(rows[0]).toHaveTextContent('$12.99');
    expect(rows[0]).toHaveTextContent(payments.routes.paypal);
    expect(within(rows[0]!).getByTestId('order-status')).toHaveTextContent(payments.orders.states.pending);
    // An order under way links to its results page.
    expect(within(rows[0]!).getByRole('link')).toHaveAttribute('href', '/paymentResults/ord_3');
    expect(rows[1]).toHaveTextContent('100 tokens');
    expect(within(rows[1]!).getByTestId('order-status')).toHaveTextContent(payments.orders.states.refunded);
    expect(within(rows[1]!).getByTestId('order-refund')).toHaveTextContent('$3.33 refunded');
    expect(rows[2]).toHaveTextContent('580 tokens');
    expect(within(rows[2]!).queryByTestId('order-refund')).toBeNull();
    expect(rows[2]).toHaveTextContent(payments.routes.nowpayments);
    expect(rows[2]).toHaveTextContent(
      new Intl.DateTimeFormat('en', { year: 'numeric', month: 'long', day: 'numeric' }).format(
        new Date(1_790_000_100 * 1000),
      ),
    );
  });

  it('says when there are no orders yet and offers tokens', async () => {
    renderPage(aUser(), []);
    const empty = await screen.findByTestId('orders-empty');
    expect(empty).toHaveTextContent(payments.orders.empty);
    expect(within(empty).getByRole('link')).toHaveAttribute('href', '/buytokens');
  });

  it('offers a retry when the list cannot be loaded', async () => {
    renderPage(aUser(), null);
    expect(await screen.findByText(payments.orders.loadFailed)).toBeInTheDocument();
  });

  it('asks a signed-out visitor to sign in, without asking for orders', () => {
    const calls = renderPage(null, ORDERS);
    expect(screen.getByTestId('payments-signed-out')).toBeInTheDocument();
    expect(store.get(showLoginTipAtom)).toBe(true);
    expect(calls.some((call) => call.path === '/user/v1/payment/getUserOrderList')).toBe(false);
  });
});

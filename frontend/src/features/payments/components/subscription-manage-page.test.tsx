import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { gettingUserAtom, notificationsAtom, store, userInfoAtom, userInfoFetchedAtom } from '@/app/store';
import type { Subscription } from '@/features/payments/api/payments-api';
import SubscriptionManagePage, { canCancel } from '@/features/payments/components/subscription-manage-page';
import { serveApi, type FakeReply } from '@/test/fake-api';
import payments from '../../../../public/locales/en/payments.json';
import { aUser } from '@/test/fixtures';

const PAID = aUser({ userVipType: 1, coin: 1000 });

// 2026-11-24 and 2026-12-24, noon UTC: the same day in every time zone the tests run in.
const STARTED = Date.UTC(2026, 10, 24, 12) / 1000;
const PERIOD_END = Date.UTC(2026, 11, 24, 12) / 1000;
const ACTIVE: Subscription = {
  subscriptionId: 'sub_1',
  productId: 'month_1',
  route: 'sandbox',
  state: 'active',
  startedAt: STARTED,
  currentPeriodEnd: PERIOD_END,
  renews: true,
};
const CANCELLED: Subscription = { ...ACTIVE, state: 'cancelled', renews: false };

function renderPage(routes: Record<string, FakeReply | FakeReply[]>) {
  const calls = serveApi(routes);
  act(() => {
    store.set(userInfoAtom, PAID);
    store.set(gettingUserAtom, false);
    store.set(userInfoFetchedAtom, true);
    store.set(notificationsAtom, []);
  });
  render(
    <Provider store={store}>
      <MemoryRouter initialEntries={['/subscriptionmanage']}>
        <SubscriptionManagePage />
      </MemoryRouter>
    </Provider>,
  );
  return calls;
}

afterEach(() => {
  store.set(userInfoAtom, null);
});

describe('/subscriptionmanage', () => {
  it('shows the plan, its state, start, period end and renewal date', async () => {
    renderPage({ '/user/v1/pay/getUserSubscriptionList': { code: 200, data: [ACTIVE] } });
    const card = await screen.findByTestId('subscription');
    expect(card).toHaveTextContent('1 month');
    expect(within(card).getByTestId('subscription-state')).toHaveTextContent('Active');
    expect(card).toHaveTextContent('November 24, 2026');
    expect(within(card).getByTestId('subscription-period-end')).toHaveTextContent('Renews on December 24, 2026');
    expect(card).toHaveTextContent(payments.routes.sandbox);
  });

  it('cancels behind a confirmation, then says "ends on" and keeps the plan', async () => {
    const calls = renderPage({
      '/user/v1/pay/getUserSubscriptionList': [
        { code: 200, data: [ACTIVE] },
        { code: 200, data: [CANCELLED] },
      ],
      '/user/v1/pay/unSubscription': { code: 200, data: true },
    });
    fireEvent.click(await screen.findByTestId('cancel-subscription'));
    const dialog = screen.getByTestId('cancel-subscription-dialog');
    expect(dialog).toHaveTextContent('You keep your plan and your tokens until December 24, 2026.');
    // Keeping the plan changes nothing.
    fireEvent.click(within(dialog).getByRole('button', { name: payments.subscriptions.keep }));
    expect(screen.queryByTestId('cancel-subscription-dialog')).toBeNull();
    expect(calls.some((c) => c.path === '/user/v1/pay/unSubscription')).toBe(false);

    fireEvent.click(screen.getByTestId('cancel-subscription'));
    fireEvent.click(screen.getByTestId('confirm-cancel-subscription'));
    await waitFor(() =>
      expect(screen.getByTestId('subscription-period-end')).toHaveTextContent('Ends on December 24, 2026'),
    );
    expect(screen.getByTestId('subscription-state')).toHaveTextContent('Cancelled');
    expect(screen.queryByTestId('cancel-subscription')).toBeNull();
    expect(screen.queryByTestId('cancel-subscription-dialog')).toBeNull();
    expect(calls.find((c) => c.path === '/user/v1/pay/unSubscription')?.payload).toEqual({ subscriptionId: 'sub_1' });
    expect(store.get(notificationsAtom).map((n) => n.message)).toEqual([
      'Your subscription is cancelled. Your plan stays active until December 24, 2026.',
    ]);
  });

  it('says when there is no subscription yet', async () => {
    renderPage({ '/user/v1/pay/getUserSubscriptionList': { code: 200, data: [] } });
    expect(await screen.findByTestId('subscriptions-empty')).toHaveTextContent(payments.subscriptions.empty);
  });

  it('offers cancelling only for a subscription that would renew', () => {
    expect(canCancel(ACTIVE)).toBe(true);
    expect(canCancel(CANCELLED)).toBe(false);
    expect(canCancel({ ...ACTIVE, state: 'ended', renews: false })).toBe(false);
  });
});

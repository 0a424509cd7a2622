import { act, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'jotai';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { gettingUserAtom, showLoginTipAtom, store, userInfoAtom, userInfoFetchedAtom } from '@/app/store';
import type { Payment } from '@/features/payments/api/payments-api';
import PaymentResultPage from '@/features/payments/components/payment-result-page';
import { POLL_INTERVAL_MS } from '@/features/payments/stores/payment-result';
import type { UserInfo } from '@/lib/api-types';
import type { ServerEvent } from '@/lib/realtime-events';
import { STORAGE_KEYS, storage } from '@/lib/storage';
import { serveApi, VIP_DATA } from '@/test/fake-api';
import payments from '../../../../public/locales/en/payments.json';
import { aUser } from '@/test/fixtures';

const reads = vi.hoisted(() => ({ answers: [] as unknown[], calls: [] as string[] }));
const socket = vi.hoisted(() => ({ listeners: new Set<(event: unknown) => void>() }));

vi.mock('@/features/payments/api/payments-api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getUserLastFlowId: vi.fn(async (orderId: string) => {
    reads.calls.push(orderId);
    const answer = reads.answers.length > 1 ? reads.answers.shift() : reads.answers[0];
    if (answer === 'network-error') throw new Error('offline');
    return { code: 200, msg: '', success: true, data: answer };
  }),
}));

vi.mock('@/lib/realtime', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  onServerEvent: (listener: (event: unknown) => void) => {
    socket.listeners.add(listener);
    return () => socket.listeners.delete(listener);
  },
}));

const ORDER = 'ord_0123456789abcdefghijklmn';
const FREE = aUser();

function payment(status: Payment['status'], extra: Partial<Payment> = {}): Payment {
  const final = ['paid', 'failed', 'expired', 'refunded'].includes(status);
  return {
    flowId: ORDER,
    productId: 'month_1',
    route: 'sandbox',
    status,
    amount: '12.99',
    currency: 'USD',
    createdAt: 1,
    updatedAt: 2,
    final,
    ...extra,
  };
}

function say(event: ServerEvent) {
  act(() => socket.listeners.forEach((listener) => listener(event)));
}

/** Lets answered promises run and React render, then moves the clock on. */
async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

function renderAt(path: string, user: UserInfo | null = FREE) {
  act(() => {
    store.set(userInfoAtom, user);
    store.set(gettingUserAtom, false);
    store.set(userInfoFetchedAtom, true);
    store.set(showLoginTipAtom, false);
  });
  return render(
    <Provider store={store}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/paymentResults/:resultId" element={<PaymentResultPage />} />
        </Routes>
      </MemoryRouter>
    </Provider>,
  );
}

const phase = () => screen.getByTestId('payment-result').getAttribute('data-phase');

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: false });
  reads.answers = [];
  reads.calls = [];
  socket.listeners.clear();
  // The page reads the catalogue and, on success, the user (the new plan and balance).
  serveApi({
    '/user/v1/getVipData': { code: 200, data: VIP_DATA },
    '/user/v1/getUserInfo': { code: 200, data: { ...FREE, userVipType: 1, coin: 1000 } },
  });
});

afterEach(() => {
  vi.useRealTimers();
  store.set(userInfoAtom, null);
});

describe('/paymentResults/{orderId}', () => {
  it('polls every 2 s while pending, then shows the plan, stores the success time and refetches the user', async () => {
    reads.answers = [payment('created'), payment('pending'), payment('paid')];
    renderAt(`/paymentResults/${ORDER}`);
    await advance(0);
    expect(reads.calls).toEqual([ORDER]);
    expect(phase()).toBe('pending');
    expect(screen.getByText(payments.result.pendingText)).toBeInTheDocument();

    await advance(POLL_INTERVAL_MS - 1);
    expect(reads.calls).toHaveLength(1);
    await advance(1);
    expect(reads.calls).toHaveLength(2);
    await advance(POLL_INTERVAL_MS);
    expect(reads.calls).toHaveLength(3);
    expect(phase()).toBe('paid');
    expect(screen.getByTestId('payment-result-text')).toHaveTextContent('Your 1 month plan is active.');
    expect(Number(storage.get(STORAGE_KEYS.paymentSuccessTime))).toBeGreaterThan(0);

    // Final: no more reads.
    await advance(POLL_INTERVAL_MS * 5);
    expect(reads.calls).toHaveLength(3);

    // The refetched user is paid now: the page shows the new balance (1000 coins ÷ 10). The
    // refetch goes through the real client, whose WebCrypto does not follow the fake clock.
    vi.useRealTimers();
    expect(await screen.findByTestId('payment-result-balance')).toHaveTextContent('Balance: 100 tokens');
  });

  it('settles on the socket’s paymentResult without waiting for the next read', async () => {
    reads.answers = [payment('pending', { productId: 'coin_3', route: 'nowpayments' })];
    renderAt(`/paymentResults/${ORDER}`);
    await advance(0);
    expect(phase()).toBe('pending');
    expect(screen.getByTestId('payment-result-crypto')).toHaveTextContent(payments.result.pendingCrypto);
    say({ event: 'paymentResult', data: { orderId: ORDER, productId: 'coin_3', status: 'paid' } });
    expect(phase()).toBe('paid');
    await advance(POLL_INTERVAL_MS * 3);
    expect(reads.calls).toHaveLength(1);
    // What the package added comes from the catalogue, read through the real client.
    vi.useRealTimers();
    await waitFor(() =>
      expect(screen.getByTestId('payment-result-text')).toHaveTextContent('580 tokens were added to your balance.'),
    );
  });

  it('gives up after 60 reads with "Check again", which starts another round', async () => {
    reads.answers = [payment('pending')];
    renderAt(`/paymentResults/${ORDER}`);
    await advance(0);
    for (let i = 1; i < 60; i += 1) await advance(POLL_INTERVAL_MS);
    expect(reads.calls).toHaveLength(60);
    await advance(POLL_INTERVAL_MS * 10);
    expect(reads.calls).toHaveLength(60);
    expect(screen.getByText(payments.result.stoppedText)).toBeInTheDocument();
    act(() => screen.getByTestId('payment-check-again').click());
    await advance(0);
    expect(reads.calls).toHaveLength(61);
  });

  it('offers the same checkout again after a failure', async () => {
    reads.answers = [payment('failed', { productId: 'coin_5' })];
    renderAt(`/paymentResults/${ORDER}`);
    await advance(0);
    expect(phase()).toBe('failed');
    expect(screen.getByTestId('payment-retry')).toHaveAttribute('href', '/pay/coin_5');
  });

  it('says a cancelled payment was cancelled after one read, with a retry', async () => {
    reads.answers = [payment('created', { productId: 'quarter_1' })];
    renderAt(`/paymentResults/${ORDER}?cancelled=1`);
    await advance(0);
    expect(phase()).toBe('cancelled');
    expect(screen.getByText(payments.result.cancelledTitle)).toBeInTheDocument();
    expect(screen.getByTestId('payment-retry')).toHaveAttribute('href', '/pay/quarter_1');
    await advance(POLL_INTERVAL_MS * 3);
    expect(reads.calls).toHaveLength(1);
  });

  it('asks a signed-out visitor to sign in and reads nothing', async () => {
    renderAt(`/paymentResults/${ORDER}`, null);
    await advance(POLL_INTERVAL_MS);
    expect(screen.getByTestId('payments-signed-out')).toBeInTheDocument();
    expect(store.get(showLoginTipAtom)).toBe(true);
    expect(reads.calls).toEqual([]);
  });
});

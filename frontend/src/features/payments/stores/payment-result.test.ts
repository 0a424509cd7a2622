import { describe, expect, it } from 'vitest';
import type { Payment } from '@/features/payments/api/payments-api';
import {
  initialPaymentResult,
  paymentResultReducer,
  paymentResultView,
  POLL_LIMIT,
  shouldPoll,
  type PaymentResultAction,
  type PaymentResultState,
} from '@/features/payments/stores/payment-result';

const ORDER = 'ord_0123456789abcdefghijklmn';

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

function run(state: PaymentResultState, ...actions: PaymentResultAction[]): PaymentResultState {
  return actions.reduce(paymentResultReducer, state);
}

/** One read: started, then answered. */
const read = (answer: Payment | null): PaymentResultAction[] => [
  { type: 'pollStarted' },
  { type: 'polled', payment: answer },
];
const failedRead: PaymentResultAction[] = [{ type: 'pollStarted' }, { type: 'pollFailed' }];

describe('the payment results state', () => {
  it('checks first, then waits while the order is pending, then shows success', () => {
    let state = initialPaymentResult(ORDER, false);
    expect(paymentResultView(state)).toEqual({ phase: 'checking' });
    expect(shouldPoll(state)).toBe(true);

    state = run(state, ...read(payment('created')), ...read(payment('pending')));
    expect(paymentResultView(state)).toMatchObject({
      phase: 'pending',
      productId: 'month_1',
      crypto: false,
      stopped: false,
    });
    expect(shouldPoll(state)).toBe(true);

    state = run(state, ...read(payment('paid')));
    expect(paymentResultView(state)).toMatchObject({ phase: 'paid', productId: 'month_1' });
    expect(shouldPoll(state)).toBe(false);
  });

  it('says a crypto payment can take a few minutes', () => {
    const state = run(
      initialPaymentResult(ORDER, false),
      ...read(payment('pending', { route: 'nowpayments', productId: 'coin_3' })),
    );
    expect(paymentResultView(state)).toMatchObject({ phase: 'pending', crypto: true, productId: 'coin_3' });
  });

  it('offers a retry of the same product after a failure or an expiry', () => {
    expect(
      paymentResultView(run(initialPaymentResult(ORDER, false), ...read(payment('failed', { productId: 'coin_5' })))),
    ).toEqual({
      phase: 'failed',
      productId: 'coin_5',
      reason: 'failed',
    });
    expect(paymentResultView(run(initialPaymentResult(ORDER, false), ...read(payment('expired'))))).toMatchObject({
      phase: 'failed',
      reason: 'expired',
    });
    expect(paymentResultView(run(initialPaymentResult(ORDER, false), ...read(payment('refunded'))))).toMatchObject({
      phase: 'refunded',
    });
  });

  it('stops after POLL_LIMIT reads in a row and starts again on "check again"', () => {
    let state = initialPaymentResult(ORDER, false);
    for (let i = 0; i < POLL_LIMIT; i += 1) {
      expect(shouldPoll(state)).toBe(true);
      state = run(state, ...read(payment('pending')));
    }
    expect(shouldPoll(state)).toBe(false);
    expect(paymentResultView(state)).toMatchObject({ phase: 'pending', stopped: true });
    state = run(state, { type: 'checkAgain' });
    expect(shouldPoll(state)).toBe(true);
    expect(paymentResultView(state)).toMatchObject({ phase: 'pending', stopped: false });
  });

  it('keeps polling through network failures and says so when no read ever answered', () => {
    let state = initialPaymentResult(ORDER, false);
    for (let i = 0; i < POLL_LIMIT - 1; i += 1) state = run(state, ...failedRead);
    expect(paymentResultView(state)).toEqual({ phase: 'checking' });
    expect(shouldPoll(state)).toBe(true);
    state = run(state, ...failedRead);
    expect(paymentResultView(state)).toEqual({ phase: 'unreachable' });
    state = run(state, { type: 'checkAgain' }, ...read(payment('paid')));
    expect(paymentResultView(state)).toMatchObject({ phase: 'paid' });
  });

  it('is not "stopped" while the last read of a round is still on its way', () => {
    let state = initialPaymentResult(ORDER, false);
    for (let i = 0; i < POLL_LIMIT - 1; i += 1) state = run(state, ...read(payment('pending')));
    state = run(state, { type: 'pollStarted' });
    expect(paymentResultView(state)).toMatchObject({ phase: 'pending', stopped: false });
  });

  it('settles at once on the socket’s paymentResult for this order, and ignores other orders', () => {
    let state = run(initialPaymentResult(ORDER, false), ...read(payment('pending')));
    state = run(state, { type: 'event', orderId: 'ord_other', productId: 'coin_1', status: 'paid' });
    expect(paymentResultView(state)).toMatchObject({ phase: 'pending' });
    state = run(state, { type: 'event', orderId: ORDER, productId: 'month_1', status: 'paid' });
    expect(paymentResultView(state)).toMatchObject({ phase: 'paid', productId: 'month_1' });
    expect(shouldPoll(state)).toBe(false);
  });

  it('takes an event that arrives before any read, and keeps its word against a slower read', () => {
    let state = run(initialPaymentResult(ORDER, false), { type: 'pollStarted' });
    state = run(state, { type: 'event', orderId: ORDER, productId: 'coin_3', status: 'paid' });
    expect(paymentResultView(state)).toEqual({ phase: 'paid', productId: 'coin_3', payment: null });
    // The read started before the event answers with the old state: the order stays paid.
    state = run(state, { type: 'polled', payment: payment('pending', { productId: 'coin_3' }) });
    expect(paymentResultView(state)).toMatchObject({ phase: 'paid', productId: 'coin_3' });
    expect(state.payment?.amount).toBe('12.99');
  });

  it('does not let a late non-final event undo a final read', () => {
    const state = run(initialPaymentResult(ORDER, false), ...read(payment('paid')), {
      type: 'event',
      orderId: ORDER,
      productId: 'month_1',
      status: 'pending',
    });
    expect(paymentResultView(state)).toMatchObject({ phase: 'paid' });
  });

  it('says "cancelled" after one read when the buyer gave up, unless the order was paid after all', () => {
    let state = initialPaymentResult(ORDER, true);
    expect(paymentResultView(state)).toEqual({ phase: 'checking' });
    state = run(state, ...read(payment('created', { productId: 'quarter_1' })));
    expect(paymentResultView(state)).toEqual({ phase: 'cancelled', productId: 'quarter_1' });
    expect(shouldPoll(state)).toBe(false);

    const paidAnyway = run(initialPaymentResult(ORDER, true), ...read(payment('paid')));
    expect(paymentResultView(paidAnyway)).toMatchObject({ phase: 'paid' });
    const failed = run(initialPaymentResult(ORDER, true), ...read(payment('failed')));
    expect(paymentResultView(failed)).toMatchObject({ phase: 'cancelled' });
  });

  it('says the order is unknown when the server has none of this user, and stops', () => {
    const state = run(initialPaymentResult(ORDER, false), ...read(null));
    expect(paymentResultView(state)).toEqual({ phase: 'unknownOrder' });
    expect(shouldPoll(state)).toBe(false);
  });
});

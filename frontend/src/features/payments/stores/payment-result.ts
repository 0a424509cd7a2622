/**
 * The results page's state (`/paymentResults/{orderId}`): what the polls of
 * `getUserLastFlowId` and the socket's `paymentResult` events have said about one order,
 * and what to show. Pure, so that every path is tested without timers or a server.
 *
 * The page polls every POLL_INTERVAL_MS until the order is final, at most POLL_LIMIT times
 * in a row ("Check again" starts another round); a `paymentResult` event for the order
 * settles it at once. A visitor who gave up at the processor (`?cancelled=1`) is told so
 * after one read of the order, unless that read says it was paid after all.
 */
import type { Payment, PaymentStatus } from '@/features/payments/api/payments-api';

export const POLL_INTERVAL_MS = 2_000;
/** Two minutes of polls; most processors confirm within seconds, crypto may take longer. */
export const POLL_LIMIT = 60;

const FINAL: ReadonlySet<PaymentStatus> = new Set(['paid', 'failed', 'expired', 'refunded']);

export function isFinalStatus(status: PaymentStatus): boolean {
  return FINAL.has(status);
}

export interface PaymentResultState {
  orderId: string;
  cancelled: boolean;
  /** The order as last read, with a status an event may have advanced since. */
  payment: Payment | null;
  /** The server answered that this user has no such order. */
  unknownOrder: boolean;
  /** What an event said before any read answered (no amount or route known yet). */
  eventOnly: { productId: string; status: PaymentStatus } | null;
  /** Reads started in this round (answered or not). */
  polls: number;
  /** Reads of this round that have answered or failed; below `polls` while one is on its way. */
  settled: number;
  /** Reads of this round that could not reach the server. */
  failures: number;
}

export type PaymentResultAction =
  | { type: 'pollStarted' }
  | { type: 'polled'; payment: Payment | null }
  | { type: 'pollFailed' }
  | { type: 'event'; orderId: string; productId: string; status: PaymentStatus }
  | { type: 'checkAgain' };

export function initialPaymentResult(orderId: string, cancelled: boolean): PaymentResultState {
  return { orderId, cancelled, payment: null, unknownOrder: false, eventOnly: null, polls: 0, settled: 0, failures: 0 };
}

/** The status the page goes by: the newest of the last read and the events after it. */
function currentStatus(state: PaymentResultState): PaymentStatus | null {
  return state.payment?.status ?? state.eventOnly?.status ?? null;
}

export function paymentResultReducer(state: PaymentResultState, action: PaymentResultAction): PaymentResultState {
  switch (action.type) {
    case 'pollStarted':
      return { ...state, polls: state.polls + 1 };
    case 'polled': {
      const settled = state.settled + 1;
      if (!action.payment) return { ...state, settled, unknownOrder: true };
      // An event may have settled the order while this read was on its way: keep the final word.
      const status = currentStatus(state);
      const keepEvent = status !== null && isFinalStatus(status) && !action.payment.final;
      const payment = keepEvent ? { ...action.payment, status, final: true } : action.payment;
      return { ...state, settled, payment, unknownOrder: false, eventOnly: null };
    }
    case 'pollFailed':
      return { ...state, settled: state.settled + 1, failures: state.failures + 1 };
    case 'event': {
      if (action.orderId !== state.orderId) return state;
      const final = isFinalStatus(action.status);
      if (state.payment) {
        if (state.payment.final && !final) return state;
        return { ...state, payment: { ...state.payment, status: action.status, final } };
      }
      return { ...state, eventOnly: { productId: action.productId, status: action.status } };
    }
    case 'checkAgain':
      return { ...state, polls: 0, settled: 0, failures: 0 };
  }
}

/**
 * Whether another read is due once the one on its way (if any) has settled: not final, not
 * given up on, and this round not used up.
 */
export function shouldPoll(state: PaymentResultState): boolean {
  if (state.unknownOrder) return false;
  const status = currentStatus(state);
  if (status !== null && isFinalStatus(status)) return false;
  // A cancelled checkout needs one read (was it paid after all?), not a watch.
  if (state.cancelled && state.payment) return false;
  return state.polls < POLL_LIMIT;
}

export type PaymentResultView =
  | { phase: 'checking' }
  | { phase: 'paid'; productId: string; payment: Payment | null }
  | { phase: 'pending'; productId: string; payment: Payment; crypto: boolean; stopped: boolean }
  | { phase: 'failed'; productId: string; reason: 'failed' | 'expired' }
  | { phase: 'refunded'; productId: string }
  | { phase: 'cancelled'; productId: string | null }
  | { phase: 'unknownOrder' }
  | { phase: 'unreachable' };

/** What the page shows for the state. */
export function paymentResultView(state: PaymentResultState): PaymentResultView {
  if (state.unknownOrder) return { phase: 'unknownOrder' };
  const status = currentStatus(state);
  const productId = state.payment?.productId ?? state.eventOnly?.productId ?? null;
  if (status === 'paid') return { phase: 'paid', productId: productId ?? '', payment: state.payment };
  if (status === 'refunded') return { phase: 'refunded', productId: productId ?? '' };
  if (state.cancelled && (state.payment || status === 'failed')) return { phase: 'cancelled', productId };
  if (status === 'failed' || status === 'expired')
    return { phase: 'failed', productId: productId ?? '', reason: status };
  if (state.payment) {
    return {
      phase: 'pending',
      productId: state.payment.productId,
      payment: state.payment,
      crypto: state.payment.route === 'nowpayments',
      stopped: !shouldPoll(state) && state.settled === state.polls,
    };
  }
  if (state.polls >= POLL_LIMIT && state.settled === state.polls) return { phase: 'unreachable' };
  return { phase: 'checking' };
}

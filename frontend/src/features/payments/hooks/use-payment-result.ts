import { useEffect, useReducer, useRef } from 'react';
import { getUserLastFlowId } from '@/features/payments/api/payments-api';
import {
  initialPaymentResult,
  paymentResultReducer,
  paymentResultView,
  POLL_INTERVAL_MS,
  shouldPoll,
} from '@/features/payments/stores/payment-result';
import { ApiCode } from '@/lib/api-types';
import { onServerEvent } from '@/lib/realtime';

/**
 * Follows one order until it is final (stores/payment-result.ts): the first read at once,
 * then one every POLL_INTERVAL_MS after the last has answered, and the socket's
 * `paymentResult` events in between. Returns what to show and "check again".
 */
export function usePaymentResult(orderId: string, cancelled: boolean) {
  const [state, dispatch] = useReducer(paymentResultReducer, initialPaymentResult(orderId, cancelled));
  const due = shouldPoll(state) && state.settled === state.polls;
  // A read outlives the effect that started it (starting it changes `polls`); only leaving
  // the page drops its answer.
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  useEffect(() => {
    if (!due) return;
    const timer = setTimeout(
      () => {
        dispatch({ type: 'pollStarted' });
        getUserLastFlowId(orderId)
          .then((envelope) => {
            if (!mounted.current) return;
            if (envelope.success) dispatch({ type: 'polled', payment: envelope.data ?? null });
            // An order id the server cannot read is no order of this user's.
            else if (envelope.code === ApiCode.paramError) dispatch({ type: 'polled', payment: null });
            else dispatch({ type: 'pollFailed' });
          })
          .catch(() => mounted.current && dispatch({ type: 'pollFailed' }));
      },
      state.polls === 0 ? 0 : POLL_INTERVAL_MS,
    );
    return () => clearTimeout(timer);
  }, [due, orderId, state.polls]);

  useEffect(
    () =>
      onServerEvent((event) => {
        if (event.event === 'paymentResult') dispatch({ type: 'event', ...event.data });
      }),
    [],
  );

  return { view: paymentResultView(state), checkAgain: () => dispatch({ type: 'checkAgain' }) };
}

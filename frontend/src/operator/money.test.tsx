/**
 * The Money desk against a stubbed network (fetch is the boundary): the overview of the
 * window the operator picks, the refunds list, and Replay of a failed notification, which
 * asks for a reason, sends it with the delivery's id and shows the new state.
 */
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OperatorApp } from '@/operator/app';
import { serve } from '@/operator/test-server';
import type { FailedDelivery, MoneyOverview } from '@/operator/lib/types';

const ADMIN = { operatorId: 'op1', email: 'boss@amora.test', role: 'admin' };
const NOW = 1_764_500_000;

function overview(days: number): MoneyOverview {
  return {
    days,
    since: NOW - days * 86_400,
    until: NOW,
    truncated: false,
    orderCount: 3,
    byRouteAndState: [
      { route: 'aiglo', state: 'paid', count: 2 },
      { route: 'aiglo', state: 'refunded', count: 1 },
    ],
    revenue: {
      perDay: [{ day: '2025-11-30', currency: 'USD', orders: 3, amountMinor: 3897, amount: '38.97' }],
      perProduct: [{ productId: 'coin_4', currency: 'USD', orders: 3, amountMinor: 3897, amount: '38.97' }],
      totals: [{ scope: 'window', currency: 'USD', orders: 3, amountMinor: 3897, amount: '38.97' }],
      givenBack: [{ scope: 'window', currency: 'USD', orders: 1, amountMinor: 1299, amount: '12.99' }],
      net: [{ currency: 'USD', amountMinor: 2598, amount: '25.98' }],
    },
    refunds: [
      {
        orderId: 'ord_r1',
        userId: 'u_ann',
        route: 'aiglo',
        productId: 'coin_4',
        kind: 'chargeback',
        currency: 'USD',
        price: '12.99',
        refundedMinor: 1299,
        refunded: '12.99',
        coinsTakenBack: 12000,
        reversals: [{ providerTxnId: 'cb_1', kind: 'chargeback', at: NOW - 60 }],
        at: NOW - 60,
      },
    ],
  };
}

const DELIVERY: FailedDelivery = {
  deliveryId: '1764500000000000123',
  route: 'aiglo',
  error: 'no such order',
  receivedAt: NOW - 120,
  bytes: 40,
  body: '{"orderId":"ord_late"}',
  replay: null,
};

// uPlot draws on a canvas, which jsdom does not have: the chart shows what it was given.
vi.mock('@/operator/components/chart', () => ({
  Chart: ({ testId, labels, data }: { testId: string; labels: string[]; data: number[][] }) => (
    <div data-testid={testId} data-labels={labels.join(',')} data-values={(data[1] ?? []).join(',')} />
  ),
}));

afterEach(() => {
  vi.unstubAllGlobals();
  window.history.pushState({}, '', '/');
});

describe('money desk', () => {
  it('shows the window the operator picks, the refunds, and replays a failed notification with a reason', async () => {
    let replayed = false;
    const calls = serve({
      'GET me': () => ({ status: 200, body: ADMIN }),
      'GET money': (_body, query) => ({ status: 200, body: overview(Number(query.get('days'))) }),
      'GET money/webhooks': () => ({
        status: 200,
        body: {
          deliveries: [replayed ? { ...DELIVERY, replay: { at: NOW, applied: true, outcome: 'applied' } } : DELIVERY],
        },
      }),
      'POST money/webhook/replay': () => {
        replayed = true;
        return { status: 200, body: { deliveryId: DELIVERY.deliveryId, outcome: 'applied' } };
      },
    });
    window.history.pushState({}, '', '/operator/money');
    render(<OperatorApp />);

    const states = await screen.findByTestId('money-states');
    expect(within(states).getByText('refunded')).toBeInTheDocument();
    expect(states.querySelector('[data-route="aiglo"]')).toHaveTextContent('aiglo21');
    expect(screen.getByTestId('money-totals')).toHaveTextContent('38.97 USD (3 orders)');
    expect(screen.getByTestId('money-net')).toHaveTextContent('Given back 12.99 USD (1 order); net 25.98 USD');
    expect(screen.getByTestId('money-per-product')).toHaveTextContent('coin_4');
    const refund = screen.getByTestId('refund-row');
    expect(refund).toHaveTextContent('12.99 of 12.99 USD');
    expect(refund).toHaveTextContent('u_ann');
    expect(refund).toHaveTextContent('chargeback');
    expect(calls.find((c) => c.path === 'money')?.query).toBe('days=30');
    // The chart (loaded when needed) has a point for every day of the 30, the sales on the last.
    const chart = await screen.findByTestId('revenue-chart-USD');
    const values = chart.getAttribute('data-values')!.split(',').map(Number);
    expect(values.length).toBeGreaterThanOrEqual(30);
    expect(values.filter((v) => v > 0)).toEqual([38.97]);

    fireEvent.change(screen.getByTestId('money-days'), { target: { value: '7' } });
    await waitFor(() => expect(calls.filter((c) => c.path === 'money').map((c) => c.query)).toContain('days=7'));

    const row = await screen.findByTestId('webhook-row');
    expect(row).toHaveTextContent('no such order');
    expect(within(row).getByTestId('webhook-replay-state')).toHaveTextContent('not yet');
    fireEvent.click(within(row).getByTestId('webhook-replay'));
    // Without a reason nothing is sent.
    fireEvent.keyDown(screen.getByTestId('reason-input'), { key: 'Enter' });
    expect(calls.some((c) => c.path === 'money/webhook/replay')).toBe(false);
    fireEvent.change(screen.getByTestId('reason-input'), { target: { value: 'processor confirmed' } });
    fireEvent.keyDown(screen.getByTestId('reason-input'), { key: 'Enter' });
    await waitFor(() => expect(screen.getByTestId('webhook-replay-state')).toHaveTextContent('applied'));
    expect(calls.find((c) => c.path === 'money/webhook/replay')?.body).toEqual({
      deliveryId: DELIVERY.deliveryId,
      reason: 'processor confirmed',
    });
  });

  it('shows a failed replay as the server words it and keeps the prompt open', async () => {
    serve({
      'GET me': () => ({ status: 200, body: ADMIN }),
      'GET money': (_body, query) => ({ status: 200, body: overview(Number(query.get('days'))) }),
      'GET money/webhooks': () => ({ status: 200, body: { deliveries: [DELIVERY] } }),
      'POST money/webhook/replay': () => ({ status: 409, body: { error: 'refused: no such order' } }),
    });
    window.history.pushState({}, '', '/operator/money');
    render(<OperatorApp />);
    fireEvent.click(await screen.findByTestId('webhook-replay'));
    fireEvent.change(screen.getByTestId('reason-input'), { target: { value: 'try again' } });
    fireEvent.keyDown(screen.getByTestId('reason-input'), { key: 'Enter' });
    expect(await screen.findByText('refused: no such order')).toBeInTheDocument();
    expect(screen.getByTestId('reason-input')).toBeInTheDocument();
  });
});

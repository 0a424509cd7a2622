import { describe, expect, it } from 'vitest';
import { currencies, revenueColumns, stateGrid } from '@/operator/lib/money';
import type { MoneyOverview } from '@/operator/lib/types';

const DAY = 86_400;
const START = 1_764_460_800; // 2025-11-30 00:00 UTC

function overview(partial: Partial<MoneyOverview>): MoneyOverview {
  return {
    days: 3,
    since: START - 2 * DAY + 500,
    until: START + 500,
    truncated: false,
    orderCount: 0,
    byRouteAndState: [],
    revenue: { perDay: [], perProduct: [], totals: [], givenBack: [], net: [] },
    refunds: [],
    ...partial,
  };
}

const sum = (day: string, currency: string, amountMinor: number) => ({
  day,
  currency,
  orders: 1,
  amountMinor,
  amount: (amountMinor / 100).toFixed(2),
});

describe('money desk figures', () => {
  it('charts every day of the window for one currency, zero where nothing sold', () => {
    const data = overview({
      revenue: {
        perDay: [sum('2025-11-28', 'USD', 1299), sum('2025-11-30', 'USD', 2598), sum('2025-11-30', 'EUR', 999)],
        perProduct: [],
        totals: [],
        givenBack: [],
        net: [],
      },
    });
    expect(currencies(data)).toEqual(['USD', 'EUR']);
    expect(revenueColumns(data, 'USD')).toEqual([
      [START - 2 * DAY, START - DAY, START],
      [12.99, 0, 25.98],
    ]);
    expect(revenueColumns(data, 'EUR')[1]).toEqual([0, 0, 9.99]);
  });

  it('lays the counts out as routes by states', () => {
    const grid = stateGrid(
      overview({
        byRouteAndState: [
          { route: 'paypal', state: 'paid', count: 3 },
          { route: 'aiglo', state: 'refunded', count: 1 },
          { route: 'paypal', state: 'failed', count: 2 },
        ],
      }),
    );
    expect(grid.states).toEqual(['failed', 'paid', 'refunded']);
    expect(grid.rows).toEqual([
      { route: 'aiglo', counts: [0, 0, 1] },
      { route: 'paypal', counts: [2, 3, 0] },
    ]);
  });
});

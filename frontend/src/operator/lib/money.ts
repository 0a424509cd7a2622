/** The Money desk's figures shaped for display: revenue per day as chart columns, routes × states as a grid. */
import type { MoneyOverview } from '@/operator/lib/types';

/** The currencies that earned something in the window, in the server's order. */
export function currencies(overview: MoneyOverview): string[] {
  return [...new Set(overview.revenue.perDay.map((row) => row.currency))];
}

/**
 * uPlot columns for one currency: x = each UTC day of the window (seconds, midnight), y = that
 * day's paid revenue in major units, 0 on a day without sales (a gap would hide them).
 */
export function revenueColumns(overview: MoneyOverview, currency: string): [number[], number[]] {
  const byDay = new Map<string, number>();
  for (const row of overview.revenue.perDay) {
    if (row.currency === currency) byDay.set(row.day, row.amountMinor / 100);
  }
  const day = 86_400;
  const first = Math.floor(overview.since / day) * day;
  const last = Math.floor(overview.until / day) * day;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let at = first; at <= last; at += day) {
    xs.push(at);
    ys.push(byDay.get(new Date(at * 1000).toISOString().slice(0, 10)) ?? 0);
  }
  return [xs, ys];
}

/** The order counts as a grid: routes down, states across, 0 where there are none. */
export function stateGrid(overview: MoneyOverview): { states: string[]; rows: { route: string; counts: number[] }[] } {
  const states = [...new Set(overview.byRouteAndState.map((c) => c.state))].sort();
  const routes = [...new Set(overview.byRouteAndState.map((c) => c.route))].sort();
  const rows = routes.map((route) => ({
    route,
    counts: states.map(
      (state) => overview.byRouteAndState.find((c) => c.route === route && c.state === state)?.count ?? 0,
    ),
  }));
  return { states, rows };
}

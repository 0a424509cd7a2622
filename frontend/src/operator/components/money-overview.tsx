/** The Money desk's overview of the last N days: orders by route and state, paid revenue per day and product, refunds. */
import { lazy, Suspense, useMemo, useState } from 'react';
import { useLoad } from '@/hooks/use-load';
import { LoadError, When } from '@/operator/components/bits';
import { opGet } from '@/operator/lib/api';
import { currencies, revenueColumns, stateGrid } from '@/operator/lib/money';
import type { MoneyOverview } from '@/operator/lib/types';

// uPlot comes with the chart, when the overview has something to draw.
const Chart = lazy(() => import('@/operator/components/chart').then((m) => ({ default: m.Chart })));

const WINDOWS = [7, 30, 90, 366];

function RevenueChart({ overview, currency }: { overview: MoneyOverview; currency: string }) {
  const data = useMemo(() => revenueColumns(overview, currency), [overview, currency]);
  const labels = useMemo(() => [currency], [currency]);
  return (
    <Suspense fallback={<p className="op-muted">Loading chart…</p>}>
      <Chart
        title={`Paid revenue per day (${currency})`}
        labels={labels}
        data={data}
        unit={currency}
        testId={`revenue-chart-${currency}`}
      />
    </Suspense>
  );
}

export function MoneyOverviewPanel() {
  const [days, setDays] = useState(30);
  const load = useLoad((signal) => opGet<MoneyOverview>('money', { days }, signal), [days], { keepData: true });
  const overview = load.data;
  const grid = useMemo(() => (overview ? stateGrid(overview) : null), [overview]);
  return (
    <section data-testid="money-overview">
      <div className="op-row">
        <h2>Last {days} days</h2>
        <label>
          Window{' '}
          <select value={days} onChange={(e) => setDays(Number(e.target.value))} data-testid="money-days">
            {WINDOWS.map((n) => (
              <option key={n} value={n}>
                {n} days
              </option>
            ))}
          </select>
        </label>
      </div>
      <LoadError error={load.error} />
      {overview && grid && (
        <>
          <p data-testid="money-order-count">
            {overview.orderCount} orders
            {overview.truncated && <span className="op-muted"> (the newest only: more than the desk reads)</span>}
          </p>
          {grid.rows.length > 0 && (
            <table className="op-table" data-testid="money-states">
              <thead>
                <tr>
                  <th>Route</th>
                  {grid.states.map((state) => (
                    <th key={state}>{state}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {grid.rows.map((row) => (
                  <tr key={row.route} data-route={row.route}>
                    <td>{row.route}</td>
                    {row.counts.map((count, i) => (
                      <td key={grid.states[i]}>{count}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h3>Paid revenue</h3>
          {overview.revenue.totals.length === 0 ? (
            <p className="op-muted">No paid orders in the window.</p>
          ) : (
            <>
              <p data-testid="money-totals">
                {overview.revenue.totals.map((t) => `${t.amount} ${t.currency} (${t.orders} orders)`).join(' · ')}
              </p>
              {currencies(overview).map((currency) => (
                <RevenueChart key={currency} overview={overview} currency={currency} />
              ))}
              <table className="op-table" data-testid="money-per-day">
                <thead>
                  <tr>
                    <th>Day (UTC)</th>
                    <th>Orders</th>
                    <th>Revenue</th>
                  </tr>
                </thead>
                <tbody>
                  {overview.revenue.perDay.map((row) => (
                    <tr key={`${row.day} ${row.currency}`}>
                      <td>{row.day}</td>
                      <td>{row.orders}</td>
                      <td>
                        {row.amount} {row.currency}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <table className="op-table" data-testid="money-per-product">
                <thead>
                  <tr>
                    <th>Product or plan</th>
                    <th>Orders</th>
                    <th>Revenue</th>
                  </tr>
                </thead>
                <tbody>
                  {overview.revenue.perProduct.map((row) => (
                    <tr key={`${row.productId} ${row.currency}`}>
                      <td>{row.productId}</td>
                      <td>{row.orders}</td>
                      <td>
                        {row.amount} {row.currency}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
          <h3>Refunds and chargebacks</h3>
          {overview.refunds.length === 0 ? (
            <p className="op-muted">None in the window.</p>
          ) : (
            <table className="op-table" data-testid="money-refunds">
              <thead>
                <tr>
                  <th>When</th>
                  <th>Order</th>
                  <th>User</th>
                  <th>Route</th>
                  <th>Given back</th>
                  <th>Coins taken back</th>
                  <th>Kind</th>
                </tr>
              </thead>
              <tbody>
                {overview.refunds.map((r) => (
                  <tr key={r.orderId} data-testid="refund-row" data-order-id={r.orderId}>
                    <td>
                      <When at={r.at} />
                    </td>
                    <td>
                      <code>{r.orderId}</code>
                    </td>
                    <td>
                      <code>{r.userId}</code>
                    </td>
                    <td>{r.route}</td>
                    <td>
                      {r.refunded} of {r.price} {r.currency}
                    </td>
                    <td>{r.coinsTakenBack}</td>
                    <td>{r.kind}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

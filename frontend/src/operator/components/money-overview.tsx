/**
 * The Money desk's overview of the last N days: orders by route and state, sales per day and
 * per product or plan (refunded later or not), what refunds and chargebacks gave back, the net.
 */
import { lazy, Suspense, useMemo, useState } from 'react';
import { useLoad } from '@/hooks/use-load';
import { LoadError, When } from '@/operator/components/bits';
import { opGet } from '@/operator/lib/api';
import { currencies, revenueColumns, stateGrid } from '@/operator/lib/money';
import type { MoneyOverview, MoneySum } from '@/operator/lib/types';

// uPlot comes with the chart, when the overview has something to draw.
const Chart = lazy(() => import('@/operator/components/chart').then((m) => ({ default: m.Chart })));

const WINDOWS = [7, 30, 90, 366];

function RevenueChart({ overview, currency }: { overview: MoneyOverview; currency: string }) {
  const data = useMemo(() => revenueColumns(overview, currency), [overview, currency]);
  const labels = useMemo(() => [currency], [currency]);
  return (
    <Suspense fallback={<p className="op-muted">Loading chart…</p>}>
      <Chart
        title={`Sales per day (${currency})`}
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
            {plural(overview.orderCount, 'order')}
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
          <h3>Revenue</h3>
          {overview.revenue.totals.length === 0 && overview.revenue.givenBack.length === 0 ? (
            <p className="op-muted">No paid orders in the window.</p>
          ) : (
            <>
              <p data-testid="money-totals">
                {overview.revenue.totals
                  .map((t) => `${t.amount} ${t.currency} (${plural(t.orders, 'order')})`)
                  .join(' · ')}
              </p>
              {overview.revenue.givenBack.length > 0 && (
                <p data-testid="money-net">
                  Given back{' '}
                  {overview.revenue.givenBack
                    .map((t) => `${t.amount} ${t.currency} (${plural(t.orders, 'order')})`)
                    .join(' · ')}
                  ; net {overview.revenue.net.map((t) => `${t.amount} ${t.currency}`).join(' · ')}
                </p>
              )}
              {currencies(overview).map((currency) => (
                <RevenueChart key={currency} overview={overview} currency={currency} />
              ))}
              <SumsTable
                testId="money-per-day"
                heading="Day (UTC)"
                rows={overview.revenue.perDay.map((row) => ({ ...row, key: row.day }))}
              />
              <SumsTable
                testId="money-per-product"
                heading="Product or plan"
                rows={overview.revenue.perProduct.map((row) => ({ ...row, key: row.productId }))}
              />
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
                    <td title={r.reversals.map((v) => `${v.kind} ${v.providerTxnId}`).join('\n')}>
                      {r.kind === 'chargeback' ? <strong className="op-danger">chargeback</strong> : 'refund'}
                    </td>
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

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** One revenue breakdown (per day, per product): orders and amount per key and currency. */
function SumsTable({
  testId,
  heading,
  rows,
}: {
  testId: string;
  heading: string;
  rows: (MoneySum & { key: string })[];
}) {
  return (
    <table className="op-table" data-testid={testId}>
      <thead>
        <tr>
          <th>{heading}</th>
          <th>Orders</th>
          <th>Sales</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={`${row.key} ${row.currency}`}>
            <td>{row.key}</td>
            <td>{row.orders}</td>
            <td>
              {row.amount} {row.currency}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A user's orders with Refund on the paid ones (admin). */
import { When } from '@/operator/components/bits';
import type { PromptRequest } from '@/operator/components/reason-prompt';
import { opPost } from '@/operator/lib/api';
import type { Order } from '@/operator/lib/types';

export function OrdersTable({ orders, ask }: { orders: Order[]; ask: (request: PromptRequest) => void }) {
  if (orders.length === 0) return <p className="op-muted">No orders.</p>;
  return (
    <table className="op-table" data-testid="orders-table">
      <thead>
        <tr>
          <th>Order</th>
          <th>Product</th>
          <th>Provider</th>
          <th>Amount</th>
          <th>State</th>
          <th>Created</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {orders.map((o) => (
          <tr key={o.orderId} data-testid="order-row" data-order-id={o.orderId} data-state={o.state}>
            <td>
              <code>{o.orderId}</code>
            </td>
            <td>{o.productId}</td>
            <td>{o.route}</td>
            <td>
              {o.amount} {o.currency}
            </td>
            <td data-testid="order-state">{o.state}</td>
            <td>
              <When at={o.createdAt} ms={o.createdAt > 1e11} />
            </td>
            <td>
              {o.state === 'paid' && (
                <button
                  type="button"
                  className="op-danger"
                  data-testid="order-refund"
                  onClick={() =>
                    ask({
                      title: 'Refund order',
                      detail: `${o.amount} ${o.currency} goes back through ${o.route}; the order's coins are taken back.`,
                      run: (reason) => opPost('refund', { orderId: o.orderId, reason }),
                    })
                  }
                >
                  Refund
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

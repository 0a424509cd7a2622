/**
 * Money desk (admin): the last N days across users (orders by route and state, revenue,
 * refunds), the notifications that failed after verification with Replay, and one user's
 * orders by user number or e-mail, with refunds.
 */
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useLoad } from '@/hooks/use-load';
import { LoadError } from '@/operator/components/bits';
import { FailedWebhooks } from '@/operator/components/failed-webhooks';
import { MoneyOverviewPanel } from '@/operator/components/money-overview';
import { OrdersTable } from '@/operator/components/orders-table';
import { useAction } from '@/operator/components/use-action';
import { opPost } from '@/operator/lib/api';
import { isAdmin, useSession } from '@/operator/session';
import type { Order } from '@/operator/lib/types';

export function MoneyPage() {
  const [params, setParams] = useSearchParams();
  const user = params.get('user') ?? '';
  const [draft, setDraft] = useState(user);
  const { operator } = useSession();
  // `orders` is a POST that only reads (it takes the user in the body), so it has no reason.
  // Nothing is asked until a user is named; the server refuses a moderator's call anyway.
  const load = useLoad((signal) => opPost<{ orders: Order[] }>('orders', { user, limit: 100 }, signal), [user], {
    enabled: user !== '',
  });
  const action = useAction(() => load.reload());
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setParams(draft.trim() ? { user: draft.trim() } : {});
  };
  if (operator && !isAdmin(operator)) {
    return (
      <div>
        <h1>Money</h1>
        <LoadError error={new Error(`money needs the admin role; you are a ${operator.role}`)} />
      </div>
    );
  }
  return (
    <div>
      <h1>Money</h1>
      {operator && (
        <>
          <MoneyOverviewPanel />
          <FailedWebhooks />
        </>
      )}
      <h2>A user's orders</h2>
      <form className="op-row" onSubmit={submit} role="search">
        <input
          aria-label="User number or e-mail"
          placeholder="User number or e-mail"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          data-testid="money-user-input"
        />
        <button type="submit" data-testid="money-user-submit">
          Show orders
        </button>
      </form>
      {user && <LoadError error={load.error} />}
      {action.notice}
      {user && load.data && <OrdersTable orders={load.data.orders} ask={action.ask} />}
      {action.prompt}
    </div>
  );
}

/** Processors' notifications that failed after their signature held, with Replay (a reason is asked). */
import { useLoad } from '@/hooks/use-load';
import { LoadError, When } from '@/operator/components/bits';
import { useAction } from '@/operator/components/use-action';
import { opGet, opPost } from '@/operator/lib/api';
import type { FailedDelivery } from '@/operator/lib/types';

export function FailedWebhooks() {
  const load = useLoad((signal) => opGet<{ deliveries: FailedDelivery[] }>('money/webhooks', undefined, signal), [], {
    keepData: true,
  });
  const action = useAction(() => load.reload());
  const deliveries = load.data?.deliveries;
  return (
    <section data-testid="failed-webhooks">
      <h2>Failed notifications</h2>
      <LoadError error={load.error} />
      {action.notice}
      {deliveries && deliveries.length === 0 && <p className="op-muted">None: every verified notification applied.</p>}
      {deliveries && deliveries.length > 0 && (
        <table className="op-table">
          <thead>
            <tr>
              <th>Received</th>
              <th>Route</th>
              <th>Error</th>
              <th>What it says</th>
              <th>Replay</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.deliveryId} data-testid="webhook-row" data-delivery-id={d.deliveryId}>
                <td>
                  <When at={d.receivedAt} />
                </td>
                <td>{d.route}</td>
                <td>{d.error}</td>
                <td>
                  <code className="op-clip" title={d.body}>
                    {d.body.length > 160 ? `${d.body.slice(0, 160)}…` : d.body}
                  </code>
                </td>
                <td data-testid="webhook-replay-state">
                  {d.replay ? (
                    <>
                      {d.replay.applied ? 'applied' : d.replay.outcome} (<When at={d.replay.at} />)
                    </>
                  ) : (
                    <span className="op-muted">not yet</span>
                  )}
                </td>
                <td>
                  <button
                    type="button"
                    data-testid="webhook-replay"
                    onClick={() =>
                      action.ask({
                        title: 'Replay notification',
                        detail: `The ${d.route} notification goes through its signature check and billing again; a payment already applied is not applied twice.`,
                        run: (reason) => opPost('money/webhook/replay', { deliveryId: d.deliveryId, reason }),
                      })
                    }
                  >
                    Replay
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {action.prompt}
    </section>
  );
}

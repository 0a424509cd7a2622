/**
 * One user (admin): account, plan, balance with its ledger, orders with refunds, reports
 * made and received (on the user's characters and shared images), live sessions (each can be ended alone); actions Credit, Set plan, End plan, Suspend/Unsuspend, End sessions, Delete (typed
 * confirmation of the user number). The action bar shows even when the account did not
 * load, so a refused role (403) reads the server's message.
 */
import { Link, useParams } from 'react-router';
import { useLoad } from '@/hooks/use-load';
import { LoadError, When } from '@/operator/components/bits';
import { OrdersTable } from '@/operator/components/orders-table';
import { SessionsTable } from '@/operator/components/sessions-table';
import { useAction } from '@/operator/components/use-action';
import { opGet, opPost } from '@/operator/lib/api';
import type { ImageReported, ReportReceived, UserDetail } from '@/operator/lib/types';
import { suspendRequest } from '@/operator/pages/users';

export function UserDetailPage() {
  const user = decodeURIComponent(useParams().user ?? '');
  const load = useLoad((signal) => opGet<UserDetail>('user', { user }, signal), [user]);
  const action = useAction(() => load.reload());
  const detail = load.data;
  const account = detail?.account;
  const userNo = account?.userNo ?? user;

  return (
    <div>
      <h1>User {userNo}</h1>
      <LoadError error={load.error} />
      {action.notice}
      <div className="op-row op-actions" aria-label="User actions">
        <button
          type="button"
          data-testid="user-credit"
          onClick={() =>
            action.ask({
              title: 'Credit coins',
              detail: 'Positive credits, negative debits. The reason names the ledger row.',
              fields: [{ name: 'coins', label: 'Coins', type: 'number' }],
              run: (reason, values) => {
                const coins = Number(values.coins);
                if (!Number.isInteger(coins) || coins === 0)
                  return Promise.reject(new Error('Coins: a whole number, not 0.'));
                return opPost('credit', { user: userNo, coins, reason });
              },
            })
          }
        >
          Credit
        </button>
        <button
          type="button"
          data-testid="user-set-plan"
          onClick={() =>
            action.ask({
              title: 'Set plan',
              detail: 'vipType 0 is no plan.',
              fields: [
                { name: 'vipType', label: 'vipType (0–100)', type: 'number', initial: String(account?.vipType ?? 0) },
              ],
              run: (reason, values) => opPost('setVip', { user: userNo, vipType: Number(values.vipType), reason }),
            })
          }
        >
          Set plan
        </button>
        <button
          type="button"
          data-testid="user-end-plan"
          onClick={() =>
            action.ask({
              title: 'End plan',
              detail: 'The user’s plans end now; access stops at once.',
              run: (reason) => opPost('endPlan', { user: userNo, reason }),
            })
          }
        >
          End plan
        </button>
        <button
          type="button"
          data-testid="user-suspend-toggle"
          onClick={() => action.ask(suspendRequest({ userNo, suspendedSince: account?.suspendedSince ?? null }))}
        >
          {account?.suspendedSince != null ? 'Unsuspend' : 'Suspend'}
        </button>
        <button
          type="button"
          data-testid="user-end-sessions"
          onClick={() =>
            action.ask({
              title: 'End sessions',
              detail: 'Every device of the user is signed out.',
              run: (reason) => opPost('user/endSessions', { user: userNo, reason }),
            })
          }
        >
          End sessions
        </button>
        <button
          type="button"
          className="op-danger"
          data-testid="user-delete"
          onClick={() =>
            action.ask({
              title: 'Delete user',
              detail: 'The account and its data are deleted for good.',
              confirmText: userNo,
              confirmLabel: 'Delete',
              run: (reason) => opPost('user/delete', { user: userNo, reason }),
            })
          }
        >
          Delete
        </button>
      </div>
      {account && detail && (
        <>
          <section className="op-card" data-testid="user-account" aria-label="Account">
            <dl className="op-dl">
              <dt>User id</dt>
              <dd>{account.userId}</dd>
              <dt>E-mail</dt>
              <dd>{account.email}</dd>
              <dt>Name</dt>
              <dd>{account.userName}</dd>
              <dt>Created</dt>
              <dd>
                <When at={account.createdAt} ms={account.createdAt > 1e11} />
              </dd>
              <dt>Plan (vipType)</dt>
              <dd data-testid="user-plan">{account.vipType}</dd>
              <dt>Balance</dt>
              <dd data-testid="user-balance">{account.coin}</dd>
              <dt>Suspended</dt>
              <dd>
                {account.suspendedSince !== null ? (
                  <When at={account.suspendedSince} ms={account.suspendedSince > 1e11} />
                ) : (
                  'no'
                )}
              </dd>
            </dl>
          </section>
          <h2>Ledger</h2>
          <table className="op-table" data-testid="user-ledger">
            <thead>
              <tr>
                <th>At</th>
                <th>Coins</th>
                <th>Reason</th>
                <th>Txn</th>
              </tr>
            </thead>
            <tbody>
              {detail.ledger.map((row) => (
                <tr key={row.txnId} data-testid="ledger-row">
                  <td>
                    <When at={row.at} ms={row.at > 1e11} />
                  </td>
                  <td>{row.coins}</td>
                  <td>{row.reason}</td>
                  <td>
                    <code>{row.txnId}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Orders</h2>
          <OrdersTable orders={detail.orders} ask={action.ask} />
          <h2>Sessions</h2>
          <SessionsTable user={userNo} sessions={detail.sessions ?? []} ask={action.ask} />
          <h2>Reports made</h2>
          {detail.reportsMade.length === 0 ? (
            <p className="op-muted">None.</p>
          ) : (
            <ul data-testid="user-reports">
              {detail.reportsMade.map((r) => (
                <li key={r.reportId}>
                  {r.characterName || r.characterId}: {r.reason} {r.note && `— ${r.note}`}
                </li>
              ))}
            </ul>
          )}
          <h2>Reports received</h2>
          <ReportsReceived reports={detail.reportsReceived ?? []} images={detail.imagesReported ?? []} />
        </>
      )}
      {action.prompt}
    </div>
  );
}

/** Reports on the user's characters (with what the operator decided) and the user's reported feed images. */
function ReportsReceived({ reports, images }: { reports: ReportReceived[]; images: ImageReported[] }) {
  if (reports.length === 0 && images.length === 0) return <p className="op-muted">None.</p>;
  return (
    <>
      {reports.length > 0 && (
        <table className="op-table" data-testid="user-reports-received">
          <thead>
            <tr>
              <th>When</th>
              <th>Character</th>
              <th>Reason</th>
              <th>Reporter</th>
              <th>Decision</th>
            </tr>
          </thead>
          <tbody>
            {reports.map((r) => (
              <tr key={r.reportId} data-testid="received-row">
                <td>
                  <When at={r.createdAt} ms={r.createdAt > 1e11} />
                </td>
                <td>{r.characterName || r.characterId}</td>
                <td>
                  {r.reason}
                  {r.note && ` — ${r.note}`}
                </td>
                <td>
                  <Link to={`/users/${encodeURIComponent(r.reporterId)}`}>{r.reporterId}</Link>
                </td>
                <td>{r.decision ? r.decision.decision : 'open'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {images.length > 0 && (
        <ul className="op-reported-images" data-testid="user-images-reported">
          {images.map((image) => (
            <li key={image.feedId} data-testid="reported-image">
              <img src={image.url} alt={image.characterName ?? 'Shared image'} className="op-image" loading="lazy" />
              <span>
                {image.reports} {image.reports === 1 ? 'reporter' : 'reporters'}
                {image.hidden && ', hidden from the feed'}
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** User search (e-mail, user number or id); moderators may suspend and unsuspend from here. */
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useLoad } from '@/hooks/use-load';
import { LoadError, When } from '@/operator/components/bits';
import { useAction } from '@/operator/components/use-action';
import { opGet, opPost } from '@/operator/lib/api';
import type { UserAccount } from '@/operator/lib/types';
import { isAdmin, useSession } from '@/operator/session';

export function suspendRequest(account: Pick<UserAccount, 'userNo' | 'suspendedSince'>) {
  const suspended = account.suspendedSince !== null;
  return {
    title: suspended ? 'Unsuspend user' : 'Suspend user',
    detail: suspended
      ? `User ${account.userNo} may sign in and chat again.`
      : `User ${account.userNo} is signed out and cannot sign in.`,
    run: (reason: string) => opPost(suspended ? 'unsuspend' : 'suspend', { user: account.userNo, reason }),
  };
}

export function UsersPage() {
  const { operator } = useSession();
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const [draft, setDraft] = useState(q);
  const load = useLoad((signal) => opGet<{ users: UserAccount[] }>('users', { q }, signal), [q], { enabled: q !== '' });
  const action = useAction(() => load.reload());
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setParams(draft.trim() ? { q: draft.trim() } : {});
  };
  const users = load.data?.users ?? [];
  return (
    <div>
      <h1>Users</h1>
      <form className="op-row" onSubmit={submit} role="search">
        <input
          aria-label="E-mail, user number or user id"
          placeholder="E-mail, user number or user id"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          data-testid="user-search-input"
        />
        <button type="submit" data-testid="user-search-submit">
          Search
        </button>
      </form>
      <LoadError error={load.error} />
      {action.notice}
      {q && !load.loading && !load.error && users.length === 0 && <p className="op-muted">No user matches.</p>}
      {users.length > 0 && (
        <table className="op-table" data-testid="user-results">
          <thead>
            <tr>
              <th>Number</th>
              <th>E-mail</th>
              <th>Name</th>
              <th>Created</th>
              <th>Plan</th>
              <th>Coins</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.userId} data-testid="user-row" data-user-no={u.userNo}>
                <td>
                  {isAdmin(operator) ? <Link to={`/users/${encodeURIComponent(u.userNo)}`}>{u.userNo}</Link> : u.userNo}
                </td>
                <td>{u.email}</td>
                <td>{u.userName}</td>
                <td>
                  <When at={u.createdAt} ms={u.createdAt > 1e11} />
                </td>
                <td>{u.vipType}</td>
                <td>{u.coin}</td>
                <td>{u.suspendedSince !== null ? <span className="op-badge">suspended</span> : 'active'}</td>
                <td>
                  <button type="button" onClick={() => action.ask(suspendRequest(u))} data-testid="user-suspend-toggle">
                    {u.suspendedSince !== null ? 'Unsuspend' : 'Suspend'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {action.prompt}
    </div>
  );
}

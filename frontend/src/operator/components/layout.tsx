/** The console's frame: the left navigation (admin desks only for admins) and the top bar. */
import { useEffect, useState } from 'react';
import { NavLink, Outlet, useNavigate } from 'react-router';
import { errorText, opGet, opPost } from '@/operator/lib/api';
import type { Operator } from '@/operator/lib/types';
import { isAdmin, useSession } from '@/operator/session';

const NAV: { to: string; label: string; adminOnly: boolean }[] = [
  { to: '/queues', label: 'Queues', adminOnly: false },
  { to: '/users', label: 'Users', adminOnly: false },
  { to: '/money', label: 'Money', adminOnly: true },
  { to: '/content', label: 'Content', adminOnly: true },
  { to: '/health', label: 'Health', adminOnly: true },
  { to: '/audit', label: 'Audit', adminOnly: false },
];

export function Layout() {
  const { operator, setOperator } = useSession();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (operator) return;
    const controller = new AbortController();
    opGet<Operator>('me', undefined, controller.signal)
      .then(setOperator)
      .catch((caught: unknown) => {
        if (!controller.signal.aborted) setError(errorText(caught));
      });
    return () => controller.abort();
  }, [operator, setOperator]);

  const signOut = async () => {
    try {
      await opPost('signOut', {});
    } catch {
      // signed out either way
    }
    setOperator(null);
    navigate('/sign-in');
  };

  if (!operator) {
    return <p className="op-page op-muted">{error ?? 'Loading…'}</p>;
  }
  return (
    <div className="op-shell">
      <nav className="op-nav" aria-label="Desks">
        <strong className="op-brand">Amora console</strong>
        {NAV.filter((item) => !item.adminOnly || isAdmin(operator)).map((item) => (
          <NavLink key={item.to} to={item.to} data-testid={`nav-${item.label.toLowerCase()}`}>
            {item.label}
          </NavLink>
        ))}
      </nav>
      <div className="op-main">
        <header className="op-top">
          <span data-testid="operator-email">{operator.email}</span>
          <span className="op-badge" data-testid="operator-role">
            {operator.role}
          </span>
          <button type="button" onClick={() => void signOut()} data-testid="sign-out">
            Sign out
          </button>
        </header>
        <main className="op-page">
          <Outlet />
        </main>
      </div>
    </div>
  );
}

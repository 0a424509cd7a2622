/** The console's router (basename /operator) and session. */
import { lazy, Suspense, useMemo, useState, type ReactNode } from 'react';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { Layout } from '@/operator/components/layout';
import { onSignedOut } from '@/operator/lib/api';
import type { Operator } from '@/operator/lib/types';
import { AuditPage } from '@/operator/pages/audit';
import { MoneyPage } from '@/operator/pages/money';
import { QueuesPage } from '@/operator/pages/queues';
import { SignInPage } from '@/operator/pages/sign-in';
import { UserDetailPage } from '@/operator/pages/user-detail';
import { UsersPage } from '@/operator/pages/users';
import { SessionContext } from '@/operator/session';

export const OPERATOR_BASENAME = '/operator';

// The desks with a library of their own (uPlot, marked) load when opened.
const HealthPage = lazy(() => import('@/operator/pages/health').then((m) => ({ default: m.HealthPage })));
const ContentPage = lazy(() => import('@/operator/pages/content').then((m) => ({ default: m.ContentPage })));

function Later({ children }: { children: ReactNode }) {
  return <Suspense fallback={<p className="op-muted">Loading…</p>}>{children}</Suspense>;
}

export function createOperatorRouter(basename = OPERATOR_BASENAME) {
  return createBrowserRouter(
    [
      { path: '/sign-in', element: <SignInPage /> },
      {
        path: '/',
        element: <Layout />,
        children: [
          { index: true, element: <Navigate to="/queues" replace /> },
          { path: 'queues', element: <QueuesPage /> },
          { path: 'users', element: <UsersPage /> },
          { path: 'users/:user', element: <UserDetailPage /> },
          { path: 'money', element: <MoneyPage /> },
          {
            path: 'content',
            element: (
              <Later>
                <ContentPage />
              </Later>
            ),
          },
          {
            path: 'health',
            element: (
              <Later>
                <HealthPage />
              </Later>
            ),
          },
          { path: 'audit', element: <AuditPage /> },
          { path: '*', element: <p data-testid="not-found">No such page.</p> },
        ],
      },
    ],
    { basename },
  );
}

export function OperatorApp() {
  const [operator, setOperator] = useState<Operator | null>(null);
  const router = useMemo(() => {
    const created = createOperatorRouter();
    onSignedOut(() => {
      setOperator(null);
      if (!created.state.location.pathname.endsWith('/sign-in')) void created.navigate('/sign-in');
    });
    return created;
  }, []);
  const session = useMemo(() => ({ operator, setOperator }), [operator]);
  return (
    <SessionContext.Provider value={session}>
      <RouterProvider router={router} />
    </SessionContext.Provider>
  );
}

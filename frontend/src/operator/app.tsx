/** The console's router (basename /operator) and session. */
import { useMemo, useState } from 'react';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { Layout } from '@/operator/components/layout';
import { onSignedOut } from '@/operator/lib/api';
import type { Operator } from '@/operator/lib/types';
import { AuditPage } from '@/operator/pages/audit';
import { ContentPage } from '@/operator/pages/content';
import { HealthPage } from '@/operator/pages/health';
import { MoneyPage } from '@/operator/pages/money';
import { QueuesPage } from '@/operator/pages/queues';
import { SignInPage } from '@/operator/pages/sign-in';
import { UserDetailPage } from '@/operator/pages/user-detail';
import { UsersPage } from '@/operator/pages/users';
import { SessionContext } from '@/operator/session';

export const OPERATOR_BASENAME = '/operator';

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
          { path: 'content', element: <ContentPage /> },
          { path: 'health', element: <HealthPage /> },
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

import { Provider } from 'jotai';
import { Suspense } from 'react';
import { RouterProvider } from 'react-router/dom';
import { AppErrorBoundary } from '@/app/error-boundary';
import { createAppRouter } from '@/app/router';
import { store } from '@/app/store';
import { Splash } from '@/components/splash';

type AppRouter = ReturnType<typeof createAppRouter>;

export function App({ router }: { router: AppRouter }) {
  return (
    <AppErrorBoundary>
      <Provider store={store}>
        <Suspense fallback={<Splash />}>
          <RouterProvider router={router} />
        </Suspense>
      </Provider>
    </AppErrorBoundary>
  );
}

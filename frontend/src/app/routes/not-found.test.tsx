import { render, screen } from '@testing-library/react';
import { Provider } from 'jotai';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import NotFoundPage from '@/app/routes/not-found';
import { store } from '@/app/store';

vi.mock('@/lib/telemetry', () => ({ trackPageView: vi.fn() }));
const { trackPageView } = await import('@/lib/telemetry');

describe('Not Found', () => {
  it("says 'Not Found', offers Home, and logs the 404 page view", async () => {
    const router = createMemoryRouter([{ path: '*', element: <NotFoundPage /> }], { initialEntries: ['/de/nowhere'] });
    render(
      <Provider store={store}>
        <RouterProvider router={router} />
      </Provider>,
    );
    expect(await screen.findByRole('heading', { name: 'Not Found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Home' })).toHaveAttribute('href', '/de/');
    expect(trackPageView).toHaveBeenCalledWith('404');
    expect(document.querySelector('meta[name="robots"]')).toHaveAttribute('content', 'noindex');
  });
});

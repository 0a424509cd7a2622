import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

vi.mock('@/lib/error-report', async (original) => ({
  ...(await original<typeof import('@/lib/error-report')>()),
  reportError: vi.fn(),
}));
const { reportError } = await import('@/lib/error-report');
const { AppErrorBoundary } = await import('@/app/error-boundary');

function Broken(): never {
  throw new Error('render exploded');
}

describe('render errors', () => {
  it('show the error screen with Refresh, and are reported', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const reload = vi.fn();
    vi.stubGlobal('location', { ...window.location, reload });
    render(
      <AppErrorBoundary>
        <Broken />
      </AppErrorBoundary>,
    );
    expect(screen.getByText('Something went wrong. You can try updating your browser version.')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(reload).toHaveBeenCalled();
    expect(reportError).toHaveBeenCalledWith(
      expect.objectContaining({ errorType: 'renderError', message: 'Error: render exploded' }),
    );
    vi.unstubAllGlobals();
  });
});

import { Component, useEffect, type ErrorInfo, type ReactNode } from 'react';
import { useRouteError } from 'react-router';
import { RenderErrorScreen } from '@/components/render-error-screen';
import { errorDetails, reportError } from '@/lib/error-report';

/** Catches render errors outside the router: the error screen, and a report to /webError. */
export class AppErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    reportError({ ...errorDetails('renderError', error), stack: `${error.stack ?? ''}\n${info.componentStack ?? ''}` });
  }

  render() {
    return this.state.failed ? <RenderErrorScreen /> : this.props.children;
  }
}

/** The router's error element: the same screen and report for errors inside routes. */
export function RouteErrorScreen() {
  const error = useRouteError();
  useEffect(() => {
    reportError(errorDetails('renderError', error));
  }, [error]);
  return <RenderErrorScreen />;
}

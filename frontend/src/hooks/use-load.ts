/**
 * The one way a component loads something over the API: `useLoad(request, deps)` runs the
 * request on mount and whenever a dependency changes (or `reload` is called), and answers
 * `{ data, error, loading, reload, setData }`.
 *
 * A request that is overtaken (its dependencies changed, or the component unmounted) is
 * cancelled: its signal aborts and its answer, whenever it comes, is dropped, so an older
 * response can never overwrite a newer one. The state for new dependencies is set during
 * the render that sees them (React's "adjusting state when a prop changes"), not by an
 * effect, so no render shows the old answer under the new dependencies.
 *
 * ESLint checks the dependency list of every call like an effect's (exhaustive-deps,
 * `additionalHooks` in eslint.config.js).
 */
import { useCallback, useEffect, useState, type DependencyList } from 'react';

export interface LoadOptions {
  /** False: nothing is requested (a signed-out visitor, a closed dialog); `loading` is false. */
  enabled?: boolean;
  /** Keep the data shown while the next request runs (a reload), instead of clearing it. */
  keepData?: boolean;
  /**
   * A value the request does not pass but its answer depends on (the signed-in account,
   * which the server reads from the session): a change asks again, like a dependency's.
   */
  refreshKey?: unknown;
}

export interface Load<T> {
  /** The last answer for the current dependencies (or the previous one with `keepData`). */
  data: T | undefined;
  /** What the request threw (or rejected with) for the current dependencies; null otherwise. */
  error: unknown;
  /** A request for the current dependencies is running. */
  loading: boolean;
  /** Asks again with the same dependencies. */
  reload: () => void;
  /** Changes the data in place, after a change the server confirmed without asking again. */
  setData: (update: (data: T | undefined) => T | undefined) => void;
}

interface Held<T> {
  /** The dependencies (and attempt) this state belongs to. */
  key: readonly unknown[];
  data: T | undefined;
  error: unknown;
  loading: boolean;
}

function sameKey(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, index) => Object.is(value, b[index]));
}

export function useLoad<T>(
  request: (signal: AbortSignal) => Promise<T>,
  deps: DependencyList,
  { enabled = true, keepData = false, refreshKey }: LoadOptions = {},
): Load<T> {
  const [attempt, setAttempt] = useState(0);
  const key = [...deps, refreshKey, attempt, enabled];
  const [held, setHeld] = useState<Held<T>>(() => ({ key, data: undefined, error: null, loading: enabled }));

  if (!sameKey(held.key, key)) {
    setHeld({ key, data: keepData ? held.data : undefined, error: null, loading: enabled });
  }

  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    request(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setHeld((now) => ({ ...now, data, error: null, loading: false }));
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setHeld((now) => ({ ...now, error: error ?? 'failed', loading: false }));
      },
    );
    return () => controller.abort();
    // The request is the caller's closure over `deps`; the caller's list is checked by
    // exhaustive-deps (additionalHooks), and here the effect follows exactly that list.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, key);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const setData = useCallback(
    (update: (data: T | undefined) => T | undefined) => setHeld((now) => ({ ...now, data: update(now.data) })),
    [],
  );
  return { data: held.data, error: held.error, loading: held.loading, reload, setData };
}

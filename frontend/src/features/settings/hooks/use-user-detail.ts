import { useCallback, useEffect, useState } from 'react';
import { getOwnUserInfoDetail, type UserDetail } from '@/features/settings/api/account';

export type UserDetailState =
  { status: 'loading'; detail: null } | { status: 'failed'; detail: null } | { status: 'ready'; detail: UserDetail };

/** The account's details for the settings screen, fetched while `enabled` (signed in). */
export function useUserDetail(enabled: boolean) {
  const [state, setState] = useState<UserDetailState>({ status: 'loading', detail: null });
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    if (!enabled) return;
    let cancelled = false;
    setState((previous) => (previous.status === 'ready' ? previous : { status: 'loading', detail: null }));
    getOwnUserInfoDetail().then(
      (envelope) => {
        if (cancelled) return;
        setState(
          envelope.success && envelope.data
            ? { status: 'ready', detail: envelope.data }
            : { status: 'failed', detail: null },
        );
      },
      () => !cancelled && setState({ status: 'failed', detail: null }),
    );
    return () => {
      cancelled = true;
    };
  }, [enabled, generation]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);

  /** Applies a change the server confirmed without fetching everything again. */
  const patch = useCallback((change: Partial<UserDetail>) => {
    setState((previous) =>
      previous.status === 'ready' ? { status: 'ready', detail: { ...previous.detail, ...change } } : previous,
    );
  }, []);

  return { ...state, reload, patch };
}

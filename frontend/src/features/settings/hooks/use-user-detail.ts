import { useCallback } from 'react';
import { getOwnUserInfoDetail, type UserDetail } from '@/features/settings/api/account';
import { useLoad } from '@/hooks/use-load';

export type UserDetailState =
  { status: 'loading'; detail: null } | { status: 'failed'; detail: null } | { status: 'ready'; detail: UserDetail };

async function requestDetail(): Promise<UserDetail> {
  const envelope = await getOwnUserInfoDetail();
  if (!envelope.success || !envelope.data) throw new Error('getOwnUserInfoDetail failed');
  return envelope.data;
}

/** The account's details for the settings screen, fetched while `enabled` (signed in). */
export function useUserDetail(enabled: boolean) {
  // A reload keeps the details shown until the new ones arrive.
  const { data, error, reload, setData } = useLoad(requestDetail, [], { enabled, keepData: true });
  const state: UserDetailState = data
    ? { status: 'ready', detail: data }
    : error !== null
      ? { status: 'failed', detail: null }
      : { status: 'loading', detail: null };

  /** Applies a change the server confirmed without fetching everything again. */
  const patch = useCallback(
    (change: Partial<UserDetail>) => setData((detail) => (detail ? { ...detail, ...change } : detail)),
    [setData],
  );

  return { ...state, reload, patch };
}

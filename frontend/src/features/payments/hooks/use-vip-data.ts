import { useAtomValue } from 'jotai';
import { useCallback, useEffect, useState } from 'react';
import { vipDataAtom } from '@/app/store';
import { loadVipData, type VipData } from '@/lib/catalogue';

export type VipDataLoad = { state: 'loading' } | { state: 'failed' } | { state: 'ready'; data: VipData };

/**
 * The catalogue for a screen: what this session read before shows at once, and it is read
 * again on mount (prices and routes are the server's to change). `reload` after a failure.
 */
export function useVipData(): { load: VipDataLoad; reload: () => void } {
  const cached = useAtomValue(vipDataAtom);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    setFailed(false);
    void loadVipData().then((data) => {
      if (live && !data) setFailed(true);
    });
    return () => {
      live = false;
    };
  }, [attempt]);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const load: VipDataLoad = cached
    ? { state: 'ready', data: cached }
    : failed
      ? { state: 'failed' }
      : { state: 'loading' };
  return { load, reload };
}

import { useAtomValue } from 'jotai';
import { vipDataAtom } from '@/app/store';
import { useLoad } from '@/hooks/use-load';
import { loadVipData, type VipData } from '@/lib/catalogue';

export type VipDataLoad = { state: 'loading' } | { state: 'failed' } | { state: 'ready'; data: VipData };

/**
 * The catalogue for a screen: what this session read before shows at once, and it is read
 * again on mount (prices and routes are the server's to change). `reload` after a failure.
 */
export function useVipData(): { load: VipDataLoad; reload: () => void } {
  const cached = useAtomValue(vipDataAtom);
  // loadVipData keeps the catalogue in vipDataAtom and answers null on failure.
  const { data, loading, reload } = useLoad(() => loadVipData(), []);
  const load: VipDataLoad = cached
    ? { state: 'ready', data: cached }
    : !loading && data === null
      ? { state: 'failed' }
      : { state: 'loading' };
  return { load, reload };
}

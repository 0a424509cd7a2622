import { getCreateOptions, type CreateOptions } from '@/features/create/api/create-api';
import { useLoad } from '@/hooks/use-load';
import type { GenderValue } from '@/lib/api-types';

/** The options of each gender, kept for the session: switching back and forth asks once. */
const cache = new Map<GenderValue, CreateOptions>();

/** For tests: the next screen asks the server again. */
export function forgetCreateOptions(): void {
  cache.clear();
}

async function requestOptions(gender: GenderValue): Promise<CreateOptions> {
  const envelope = await getCreateOptions(gender);
  if (!envelope.success || !envelope.data) throw new Error('getCreateOptions failed');
  cache.set(gender, envelope.data);
  return envelope.data;
}

/** `character/getCreateOptions` for `gender`: the options, or `failed` with a retry. */
export function useCreateOptions(gender: GenderValue) {
  const cached = cache.get(gender);
  // A gender asked for before is not asked again; its options show at once.
  const { data, error, reload } = useLoad(() => requestOptions(gender), [gender], { enabled: !cached });
  const options = cached ?? data ?? null;
  return { options, failed: !options && error !== null, retry: reload };
}

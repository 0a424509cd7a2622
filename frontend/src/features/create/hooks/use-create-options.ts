import { useCallback, useEffect, useState } from 'react';
import { getCreateOptions, type CreateOptions } from '@/features/create/api/create-api';
import type { GenderValue } from '@/lib/api-types';

/** The options of each gender, kept for the session: switching back and forth asks once. */
const cache = new Map<GenderValue, CreateOptions>();

/** For tests: the next screen asks the server again. */
export function forgetCreateOptions(): void {
  cache.clear();
}

/** `character/getCreateOptions` for `gender`: the options, or `failed` with a retry. */
export function useCreateOptions(gender: GenderValue) {
  const [options, setOptions] = useState<CreateOptions | null>(() => cache.get(gender) ?? null);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const cached = cache.get(gender);
    if (cached) {
      setOptions(cached);
      return;
    }
    let live = true;
    setOptions(null);
    setFailed(false);
    getCreateOptions(gender)
      .then((envelope) => {
        if (!live) return;
        if (envelope.success && envelope.data) {
          cache.set(gender, envelope.data);
          setOptions(envelope.data);
        } else setFailed(true);
      })
      .catch(() => {
        if (live) setFailed(true);
      });
    return () => {
      live = false;
    };
  }, [gender, attempt]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { options, failed, retry };
}

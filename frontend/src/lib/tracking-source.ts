/**
 * Traffic source and medium from the landing URL (API.md section 6): source = `via`, else
 * `ref`, else `utm_source`, else `impact` when an `irclickid` is present; medium =
 * `utm_medium`, else `md`, else the source. Both are kept in storage and sent as headers.
 */
import { STORAGE_KEYS, storage, type KeyValueStorage } from '@/lib/storage';

export interface TrackingSource {
  source: string;
  medium: string;
}

const nonEmpty = (value: string | null): string | null => (value && value.trim() ? value.trim() : null);

export function resolveTrackingSource(params: URLSearchParams): TrackingSource | null {
  const source =
    nonEmpty(params.get('via')) ??
    nonEmpty(params.get('ref')) ??
    nonEmpty(params.get('utm_source')) ??
    (nonEmpty(params.get('irclickid')) ? 'impact' : null);
  if (!source) return null;
  const medium = nonEmpty(params.get('utm_medium')) ?? nonEmpty(params.get('md')) ?? source;
  return { source, medium };
}

/** Stores the landing URL's source, if it names one; an unmarked visit keeps the stored one. */
export function captureTrackingSource(search: string, store: KeyValueStorage = storage): void {
  const resolved = resolveTrackingSource(new URLSearchParams(search));
  if (!resolved) return;
  store.set(STORAGE_KEYS.utmSource, resolved.source);
  store.set(STORAGE_KEYS.utmMedium, resolved.medium);
}

export function storedTrackingSource(store: KeyValueStorage = storage): TrackingSource {
  return {
    source: store.get(STORAGE_KEYS.utmSource) ?? '',
    medium: store.get(STORAGE_KEYS.utmMedium) ?? '',
  };
}

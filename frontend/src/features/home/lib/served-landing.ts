/**
 * Landing pages' copy published by operators (the console's Content desk, Landing tab)
 * overrides the copy shipped in the `topics` namespace: `POST /user/v1/landing/getLandingCopy
 * {lang, topic}` answers `{copy}` (null while as built). The server-rendered page carries the
 * same in its `#ssr-data` (`topic` data's `copy`), so the app starts from it without asking.
 * The shipped copy shows while this loads, when the call fails, and for a copy that is not
 * well formed.
 */
import type { TopicCopy } from '@/features/home/lib/topics';
import { apiPost } from '@/lib/api-client';
import type { LandingCopy, LandingCopyRequest } from '@/lib/api-types';

const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** The copy when `value` has the shape a landing page shows, else null. */
export function servedCopy(value: unknown): TopicCopy | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const faqOk =
    Array.isArray(v.faq) &&
    v.faq.every((item: unknown) => {
      const i = item as Record<string, unknown> | null;
      return !!i && isText(i.q) && isText(i.a);
    });
  const pointsOk = Array.isArray(v.points) && v.points.every(isText);
  return isText(v.heading) && isText(v.intro) && pointsOk && faqOk ? (value as TopicCopy) : null;
}

/** The published copy of `topic` in `lang`; null when none, or when the call fails (quietly). */
export async function loadServedLanding(topic: string, lang: string): Promise<TopicCopy | null> {
  try {
    const envelope = await apiPost<LandingCopy>(
      '/user/v1/landing/getLandingCopy',
      { lang, topic } satisfies LandingCopyRequest,
      { quiet: true },
    );
    return envelope.success && envelope.data ? servedCopy(envelope.data.copy) : null;
  } catch {
    return null;
  }
}

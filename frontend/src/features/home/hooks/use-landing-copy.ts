import { loadServedLanding, servedCopy } from '@/features/home/lib/served-landing';
import type { TopicCopy } from '@/features/home/lib/topics';
import { useLoad } from '@/hooks/use-load';
import { serverData } from '@/lib/server-data';

/**
 * The copy an operator published for a landing page in `lang`, or null for the shipped one:
 * what the server rendered the page with (its data names the topic and carries `copy`),
 * else asked for once.
 */
export function usePublishedLandingCopy(topic: string, lang: string): TopicCopy | null {
  const served = serverData<{ topic: string; copy?: unknown }>('topic');
  const fromServer = served?.topic === topic && served.copy !== undefined ? servedCopy(served.copy) : undefined;
  const { data } = useLoad(() => loadServedLanding(topic, lang), [topic, lang], { enabled: fromServer === undefined });
  return fromServer !== undefined ? fromServer : (data ?? null);
}

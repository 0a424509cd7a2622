import { useCallback, useEffect, useState } from 'react';
import { getCharacterInfo } from '@/features/home/api/get-character-info';
import { getCharacterList } from '@/features/home/api/get-character-list';
import { pickTopicCharacters, TOPIC_GRID_SIZE, type Topic } from '@/features/home/lib/topics';
import type { Character } from '@/lib/api-types';

/** The list API's largest page; the catalogue of one gender is read in a few of them. */
const LIST_PAGE_SIZE = 30;
const MAX_LIST_PAGES = 4;
/** Details (with tags) are read a few at a time, so a landing page never floods the server. */
const DETAIL_CONCURRENCY = 6;

/** Character details by id, shared by every landing page of this visit. */
const detailCache = new Map<string, Promise<Character | null>>();

function detailsOf(characterId: string): Promise<Character | null> {
  let pending = detailCache.get(characterId);
  if (!pending) {
    pending = getCharacterInfo(characterId)
      .then((envelope) => (envelope.success ? envelope.data : null))
      .catch(() => {
        detailCache.delete(characterId);
        return null;
      });
    detailCache.set(characterId, pending);
  }
  return pending;
}

async function mapLimited<T, R>(items: readonly T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * The catalogue characters that fit a topic: the topic's gender from the list API, their
 * tags from the details API (the list's cards carry none), then the best `TOPIC_GRID_SIZE`.
 */
async function loadTopicCharacters(topic: Topic): Promise<Character[]> {
  const ids: string[] = [];
  for (let pageNo = 1; pageNo <= MAX_LIST_PAGES; pageNo += 1) {
    const envelope = await getCharacterList({ pageNo, pageSize: LIST_PAGE_SIZE, gender: topic.gender });
    if (!envelope.success || !Array.isArray(envelope.data)) throw new Error('character list failed');
    ids.push(...envelope.data.map((card) => card.characterId));
    if (envelope.data.length < LIST_PAGE_SIZE) break;
  }
  const details = await mapLimited(ids, DETAIL_CONCURRENCY, detailsOf);
  return pickTopicCharacters(
    topic,
    details.filter((detail): detail is Character => detail !== null),
    TOPIC_GRID_SIZE,
  );
}

export type TopicCharacters =
  | { status: 'loading' }
  | { status: 'failed' }
  | { status: 'ready'; characters: Character[] };

export function useTopicCharacters(topic: Topic): { state: TopicCharacters; retry: () => void } {
  const [state, setState] = useState<TopicCharacters>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    setState({ status: 'loading' });
    loadTopicCharacters(topic).then(
      (characters) => live && setState({ status: 'ready', characters }),
      () => live && setState({ status: 'failed' }),
    );
    return () => {
      live = false;
    };
  }, [topic, attempt]);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { state, retry };
}

import { useCallback, useEffect, useState } from 'react';
import { TOPIC_GRID_SIZE, type Topic } from '@/features/home/lib/topics';
import type { CharacterCard } from '@/lib/api-types';
import { getCharacterList } from '@/lib/character-list';

/**
 * The catalogue characters that fit a topic, in one request: the list API's `tags`
 * extension (docs/api.md) returns the topic gender's characters sharing any of its tags,
 * those sharing more first, already filtered by what this visitor may see.
 */
async function loadTopicCharacters(topic: Topic): Promise<CharacterCard[]> {
  const envelope = await getCharacterList({
    pageNo: 1,
    pageSize: TOPIC_GRID_SIZE,
    gender: topic.gender,
    tags: [...topic.tags],
  });
  if (!envelope.success || !Array.isArray(envelope.data)) throw new Error('character list failed');
  return envelope.data;
}

export type TopicCharacters =
  { status: 'loading' } | { status: 'failed' } | { status: 'ready'; characters: CharacterCard[] };

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

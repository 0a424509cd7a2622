import { TOPIC_GRID_SIZE, type Topic } from '@/features/home/lib/topics';
import { useLoad } from '@/hooks/use-load';
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
  const { data, error, reload } = useLoad(() => loadTopicCharacters(topic), [topic]);
  const state: TopicCharacters = data
    ? { status: 'ready', characters: data }
    : error !== null
      ? { status: 'failed' }
      : { status: 'loading' };
  return { state, retry: reload };
}

import { TOPIC_GRID_SIZE, type Topic } from '@/features/home/lib/topics';
import { useLoad } from '@/hooks/use-load';
import type { CharacterCard } from '@/lib/api-types';
import { getCharacterList } from '@/lib/character-list';
import { serverData } from '@/lib/server-data';

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

/**
 * The topic's characters: those the server rendered the page with (`key` names the topic),
 * else asked for once.
 */
export function useTopicCharacters(key: string, topic: Topic): { state: TopicCharacters; retry: () => void } {
  const served = serverData<{ topic: string; list: CharacterCard[] }>('topic');
  const fromServer = served?.topic === key ? served.list : undefined;
  const { data, error, reload } = useLoad(() => loadTopicCharacters(topic), [topic], { enabled: !fromServer });
  const shown = fromServer ?? data;
  const state: TopicCharacters = shown
    ? { status: 'ready', characters: shown }
    : error !== null
      ? { status: 'failed' }
      : { status: 'loading' };
  return { state, retry: reload };
}

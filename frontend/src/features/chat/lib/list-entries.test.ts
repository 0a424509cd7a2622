import { describe, expect, it } from 'vitest';
import { mergeByActivity } from '@/features/chat/lib/list-entries';
import type { ChatSummary } from '@/lib/api-types';

const chat = (characterId: string, at: number): ChatSummary => ({
  characterId,
  characterName: characterId,
  characterPhoto: '',
  lastMessage: { messageId: `${at}000`, speaker: 'character', content: 'hi', createdAt: at },
});

const extra = (key: string, activeAt: number) => ({ key, activeAt, item: key });

const order = (entries: ReturnType<typeof mergeByActivity<string>>) =>
  entries.map((entry) => (entry.kind === 'chat' ? entry.summary.characterId : entry.extra.key));

describe('mergeByActivity', () => {
  it('puts groups beside conversations, the most recently active first', () => {
    const chats = [chat('gf-003', 300), chat('gf-001', 100)];
    const groups = [extra('group-b', 400), extra('group-a', 200), extra('group-c', 50)];
    expect(order(mergeByActivity(chats, groups))).toEqual(['group-b', 'gf-003', 'group-a', 'gf-001', 'group-c']);
  });

  it('keeps conversations first on a tie, and works with either side empty', () => {
    expect(order(mergeByActivity([chat('gf-001', 100)], [extra('group-a', 100)]))).toEqual(['gf-001', 'group-a']);
    expect(order(mergeByActivity([], [extra('group-a', 1)]))).toEqual(['group-a']);
    expect(order(mergeByActivity([chat('gf-001', 1)], []))).toEqual(['gf-001']);
  });
});

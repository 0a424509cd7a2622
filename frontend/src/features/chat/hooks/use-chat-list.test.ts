import { describe, expect, it } from 'vitest';
import { withLastMessage } from '@/features/chat/hooks/use-chat-list';
import type { ChatSummary } from '@/lib/api-types';

const summary = (characterId: string, content: string): ChatSummary => ({
  characterId,
  characterName: characterId,
  characterPhoto: `/media/${characterId}`,
  lastMessage: { messageId: '1', speaker: 'character', content, createdAt: 1 },
});

describe('withLastMessage', () => {
  it('moves the conversation with a new message to the top', () => {
    const list = [summary('a', 'hi'), summary('b', 'hey'), summary('c', 'yo')];
    const message = { messageId: '9', speaker: 'user' as const, content: 'news', createdAt: 9 };
    const next = withLastMessage(list, 'c', message)!;
    expect(next.map((s) => s.characterId)).toEqual(['c', 'a', 'b']);
    expect(next[0]!.lastMessage).toEqual(message);
  });

  it('says when the conversation is not listed yet', () => {
    expect(
      withLastMessage([summary('a', 'hi')], 'z', { messageId: '2', speaker: 'character', content: 'x', createdAt: 2 }),
    ).toBeNull();
  });
});

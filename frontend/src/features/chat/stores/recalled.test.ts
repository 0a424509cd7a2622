import { describe, expect, it } from 'vitest';
import { memoryChanged, nextRecalled, type RecalledByReply } from '@/features/chat/stores/recalled';
import type { ChatMessage, Recalled } from '@/lib/api-types';

const NONE: RecalledByReply = new Map();
const reply = (id: string): ChatMessage => ({
  messageId: id,
  speaker: 'character',
  content: 'Biscuit, of course!',
  createdAt: 1,
});
const RECALLED: Recalled = {
  memories: [{ id: 'm1', content: "Ann's dog is called Biscuit" }],
  messages: [{ id: '3', content: 'My dog is called Biscuit' }],
};
const done = (message: ChatMessage | null, recalled: Recalled | null) =>
  ({
    event: 'chatDone',
    data: {
      characterId: 'gf-001',
      replyId: message?.messageId ?? '9',
      finishReason: 'stop',
      cut: false,
      message,
      recalled,
    },
  }) as const;

describe('what replies recalled', () => {
  it('is kept by the reply that recalled it, and only when something was', () => {
    const held = nextRecalled(NONE, done(reply('10'), RECALLED));
    expect(held.get('10')).toEqual(RECALLED);
    expect(nextRecalled(held, done(reply('11'), null))).toBe(held);
    expect(nextRecalled(held, done(reply('12'), { memories: [], messages: [] }))).toBe(held);
    expect(nextRecalled(held, done(null, RECALLED)), 'a reply stopped before any text').toBe(held);
    expect(nextRecalled(held, { event: 'tokenCount', data: { coin: 3 } })).toBe(held);
  });

  it('goes with its reply when the reply is deleted (regenerated)', () => {
    const held = nextRecalled(NONE, done(reply('10'), RECALLED));
    expect(
      nextRecalled(held, { event: 'chatMessageDeleted', data: { characterId: 'gf-001', messageIds: ['7'] } }),
    ).toBe(held);
    expect(
      nextRecalled(held, { event: 'chatMessageDeleted', data: { characterId: 'gf-001', messageIds: ['10'] } }).size,
    ).toBe(0);
  });

  it('shows a memory edited or deleted from a note as it now is, in every note', () => {
    let held = nextRecalled(NONE, done(reply('10'), RECALLED));
    held = nextRecalled(held, done(reply('20'), { memories: RECALLED.memories, messages: [] }));
    const edited = memoryChanged(held, 'm1', "Ann's dog is called Pepper");
    expect(edited.get('10')!.memories).toEqual([{ id: 'm1', content: "Ann's dog is called Pepper" }]);
    expect(edited.get('20')!.memories[0]!.content).toBe("Ann's dog is called Pepper");
    const deleted = memoryChanged(edited, 'm1', null);
    expect(deleted.get('10')).toEqual({ memories: [], messages: RECALLED.messages });
    expect(memoryChanged(deleted, 'other', null)).toBe(deleted);
  });
});

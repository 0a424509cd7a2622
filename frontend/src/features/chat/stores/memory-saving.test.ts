import { describe, expect, it } from 'vitest';
import { nextMemorySaves, type MemorySaves } from '@/features/chat/stores/memory-saving';

const A = 'gf-001';
const B = 'gf-002';
const NONE: MemorySaves = new Map();

describe('memory saving, per character', () => {
  it('a requested save is saving at once, of type save, until its memorySaved, which is answered', () => {
    let { saves } = nextMemorySaves(NONE, { event: 'saveRequested', data: { characterId: A } });
    expect(saves.get(A)).toEqual({ type: 'save', awaitingStart: true });
    ({ saves } = nextMemorySaves(saves, { event: 'memorySaving', data: { characterId: A } }));
    expect(saves.get(A)).toEqual({ type: 'save', awaitingStart: false });
    const step = nextMemorySaves(saves, { event: 'memorySaved', data: { characterId: A, added: 2, memories: [] } });
    expect(step.saves.has(A)).toBe(false);
    expect(step.answered).toEqual({ characterId: A, added: 2 });
  });

  it('a memorySaving nobody here asked for is automatic, and its end is not answered', () => {
    const { saves } = nextMemorySaves(NONE, { event: 'memorySaving', data: { characterId: A } });
    expect(saves.get(A)).toEqual({ type: 'auto', awaitingStart: false });
    const step = nextMemorySaves(saves, { event: 'memorySaved', data: { characterId: A, added: 1, memories: [] } });
    expect(step.saves.size).toBe(0);
    expect(step.answered).toBeUndefined();
  });

  it('two characters are independent: starting, refusing and ending one leaves the other as it was', () => {
    let { saves } = nextMemorySaves(NONE, { event: 'saveRequested', data: { characterId: A } });
    expect(saves.has(B)).toBe(false);
    ({ saves } = nextMemorySaves(saves, { event: 'memorySaving', data: { characterId: B } }));
    expect(saves.get(A)).toEqual({ type: 'save', awaitingStart: true });
    expect(saves.get(B)).toEqual({ type: 'auto', awaitingStart: false });
    // B's refusal is not A's.
    ({ saves } = nextMemorySaves(saves, {
      event: 'chatError',
      data: { characterId: B, replyId: null, code: 10003, msg: 'busy' },
    }));
    expect([...saves.keys()]).toEqual([A, B]);
    ({ saves } = nextMemorySaves(saves, {
      event: 'chatError',
      data: { characterId: A, replyId: null, code: 10003, msg: 'busy' },
    }));
    expect([...saves.keys()]).toEqual([B]);
    const step = nextMemorySaves(saves, { event: 'memorySaved', data: { characterId: A, added: 1, memories: [] } });
    expect(step.saves).toBe(saves);
    expect(step.answered).toBeUndefined();
  });

  it('a refusal after the extraction started, or of a reply, leaves the save alone', () => {
    const requested = nextMemorySaves(NONE, { event: 'saveRequested', data: { characterId: A } }).saves;
    const reply = nextMemorySaves(requested, {
      event: 'chatError',
      data: { characterId: A, replyId: 'r1', code: 10003, msg: 'busy' },
    });
    expect(reply.saves).toBe(requested);
    const started = nextMemorySaves(requested, { event: 'memorySaving', data: { characterId: A } }).saves;
    const refused = nextMemorySaves(started, {
      event: 'chatError',
      data: { characterId: A, replyId: null, code: 40004, msg: 'no free messages' },
    });
    expect(refused.saves).toBe(started);
  });

  it('hello ends every save; events of no memory leave the map as it is', () => {
    const saves = nextMemorySaves(NONE, { event: 'memorySaving', data: { characterId: A } }).saves;
    expect(nextMemorySaves(saves, { event: 'tokenCount', data: { coin: 5 } }).saves).toBe(saves);
    expect(nextMemorySaves(saves, { event: 'hello', data: { userId: 'u1', coin: 0 } }).saves.size).toBe(0);
    expect(nextMemorySaves(NONE, { event: 'hello', data: { userId: 'u1', coin: 0 } }).saves).toBe(NONE);
  });
});

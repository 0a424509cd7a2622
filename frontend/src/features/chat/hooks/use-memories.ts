import { useAtomValue } from 'jotai';
import { useCallback, useEffect, useState } from 'react';
import { memorySavesAtom } from '@/app/store';
import { addMemory, deleteMemory, getMemoryList, pinMemory, updateMemory } from '@/features/chat/api/chat-api';
import { followMemorySaving, markSaveRequested } from '@/features/chat/stores/memory-saving';
import { noteMemoryChanged } from '@/features/chat/stores/recalled';
import type { Memory } from '@/lib/api-types';
import { onServerEvent, sendAction } from '@/lib/realtime';

/** What a form call answered: done, or the server's reason. */
export type MemoryResult = { ok: true } | { ok: false; code: number; msg: string };

/**
 * The memories a character keeps of the user, newest first, and the "save memories"
 * action. `saving` is this character's save in progress (stores/memory-saving.ts, which
 * follows `memorySaving`, `memorySaved` and a refused save's `chatError`); `saveType` says
 * who started it: 'save' (the user's button, the default) or 'auto' (the periodic
 * extraction after a few replies). A save that was asked for shows as saving at once.
 */
export function useMemories(characterId: string) {
  const [memories, setMemories] = useState<Memory[]>([]);
  const [status, setStatus] = useState<'loading' | 'ready' | 'failed'>('loading');
  const current = useAtomValue(memorySavesAtom).get(characterId);
  const saving = current !== undefined;
  const saveType = current?.type ?? 'save';

  const reload = useCallback(async () => {
    try {
      const envelope = await getMemoryList(characterId);
      if (envelope.success && Array.isArray(envelope.data)) {
        setMemories(envelope.data);
        setStatus('ready');
      } else setStatus('failed');
    } catch {
      setStatus('failed');
    }
  }, [characterId]);

  useEffect(() => {
    followMemorySaving();
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the list follows the socket (`memorySaved` replaces it, `hello` refetches), so the first fetch starts with the subscription; reload sets state only after its await.
    void reload();
    return onServerEvent((event) => {
      // Back after a drop: a `memorySaved` may have gone by unheard, and the list says what
      // was saved.
      if (event.event === 'hello') void reload();
      else if (event.event === 'memorySaved' && event.data.characterId === characterId) {
        setMemories(event.data.memories);
        setStatus('ready');
      }
    });
  }, [characterId, reload]);

  /** False when no socket is connected: nothing was asked. */
  const save = useCallback(() => {
    if (!sendAction({ action: 'saveMemories', data: { characterId } })) return false;
    markSaveRequested(characterId);
    return true;
  }, [characterId]);

  const add = useCallback(
    async (content: string): Promise<MemoryResult> => {
      const envelope = await addMemory(characterId, content);
      if (envelope.success && envelope.data) {
        const added = envelope.data;
        setMemories((list) => [added, ...list.filter((m) => m.memoryId !== added.memoryId)]);
        return { ok: true };
      }
      return { ok: false, code: envelope.code, msg: envelope.msg };
    },
    [characterId],
  );

  const update = useCallback(
    async (memoryId: string, content: string): Promise<MemoryResult> => {
      const envelope = await updateMemory(characterId, memoryId, content);
      if (envelope.success) {
        setMemories((list) => list.map((m) => (m.memoryId === memoryId ? { ...m, content, origin: 'user' } : m)));
        noteMemoryChanged(memoryId, content);
        return { ok: true };
      }
      return { ok: false, code: envelope.code, msg: envelope.msg };
    },
    [characterId],
  );

  const remove = useCallback(
    async (memoryId: string) => {
      const envelope = await deleteMemory(characterId, memoryId);
      if (envelope.success) {
        setMemories((list) => list.filter((m) => m.memoryId !== memoryId));
        noteMemoryChanged(memoryId, null);
      }
      return envelope.success;
    },
    [characterId],
  );

  /** Pins a memory (it enters every prompt of the character) or unpins it. */
  const pin = useCallback(
    async (memoryId: string, pinned: boolean): Promise<MemoryResult> => {
      const envelope = await pinMemory(characterId, memoryId, pinned);
      if (envelope.success && envelope.data) {
        const changed = envelope.data;
        setMemories((list) => list.map((m) => (m.memoryId === memoryId ? changed : m)));
        return { ok: true };
      }
      return { ok: false, code: envelope.code, msg: envelope.msg };
    },
    [characterId],
  );

  return { memories, status, saving, saveType, save, add, update, remove, pin, reload };
}

export type MemoriesState = ReturnType<typeof useMemories>;

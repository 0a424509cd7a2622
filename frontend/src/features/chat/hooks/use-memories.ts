import { useAtom } from 'jotai';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { addMemory, deleteMemory, getMemoryList, updateMemory } from '@/features/chat/api/chat-api';
import type { Memory } from '@/lib/api-types';
import { isMemoriesSavingAtom, saveMemoryTypeAtom } from '@/lib/app-state';
import { notify } from '@/lib/notifications';
import { onServerEvent, sendAction } from '@/lib/realtime';
import { store } from '@/lib/store';

/** What a form call answered: done, or the server's reason. */
export type MemoryResult = { ok: true } | { ok: false; code: number; msg: string };

/**
 * The memories a character keeps of the user, newest first, and the "save memories"
 * action. `isMemoriesSaving` is true from `memorySaving` to `memorySaved`;
 * `saveMemoryType` says who started it: 'save' (the user's button, the default) or
 * 'auto' (the periodic extraction after a few replies).
 *
 * A save that was asked for shows as saving at once. A refused `saveMemories` answers
 * `chatError` with `replyId` null and no `memorySaving`; once `memorySaving` has come, only
 * `memorySaved` (always sent when the extraction ends) ends the wait, so a refused send
 * (40004, say) while the extraction runs leaves it alone.
 */
export function useMemories(characterId: string) {
  const { t } = useTranslation();
  const [memories, setMemories] = useState<Memory[]>([]);
  const [status, setStatus] = useState<'loading' | 'ready' | 'failed'>('loading');
  const [saving, setSaving] = useAtom(isMemoriesSavingAtom);
  const [saveType, setSaveType] = useAtom(saveMemoryTypeAtom);
  /** `saveMemories` was sent and its `memorySaving` has not come yet. */
  const awaitingStart = useRef(false);

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
    awaitingStart.current = false;
    setSaving(false);
    setSaveType('save');
    void reload();
    const unsubscribe = onServerEvent((event) => {
      if (event.event === 'hello') {
        // Back after a drop: a `memorySaved` may have gone by unheard, and the list says
        // what was saved. A save still running ends with its `memorySaved` all the same.
        awaitingStart.current = false;
        setSaving(false);
        setSaveType('save');
        void reload();
        return;
      }
      if (!('characterId' in event.data) || event.data.characterId !== characterId) return;
      if (event.event === 'memorySaving') {
        // Not asked for here: the periodic extraction (or another tab's button).
        if (!store.get(isMemoriesSavingAtom)) setSaveType('auto');
        awaitingStart.current = false;
        setSaving(true);
      } else if (event.event === 'memorySaved') {
        setMemories(event.data.memories);
        setStatus('ready');
        if (store.get(isMemoriesSavingAtom) && store.get(saveMemoryTypeAtom) === 'save') {
          if (event.data.added > 0) notify.success(t('chat.memoriesSaved', { added: event.data.added }));
          else notify.info(t('chat.noNewMemories'));
        }
        awaitingStart.current = false;
        setSaving(false);
        setSaveType('save');
      } else if (event.event === 'chatError' && event.data.replyId === null && awaitingStart.current) {
        // The save itself was refused (the model was busy, say) before any extraction
        // started. Once `memorySaving` has come, a refusal here is some other action's.
        awaitingStart.current = false;
        setSaving(false);
      }
    });
    return () => {
      unsubscribe();
      awaitingStart.current = false;
      setSaving(false);
      setSaveType('save');
    };
  }, [characterId, reload, setSaving, setSaveType, t]);

  /** False when no socket is connected: nothing was asked. */
  const save = useCallback(() => {
    setSaveType('save');
    if (!sendAction({ action: 'saveMemories', data: { characterId } })) return false;
    awaitingStart.current = true;
    setSaving(true);
    return true;
  }, [characterId, setSaveType, setSaving]);

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
        return { ok: true };
      }
      return { ok: false, code: envelope.code, msg: envelope.msg };
    },
    [characterId],
  );

  const remove = useCallback(
    async (memoryId: string) => {
      const envelope = await deleteMemory(characterId, memoryId);
      if (envelope.success) setMemories((list) => list.filter((m) => m.memoryId !== memoryId));
      return envelope.success;
    },
    [characterId],
  );

  return { memories, status, saving, saveType, save, add, update, remove, reload };
}

export type MemoriesState = ReturnType<typeof useMemories>;

/**
 * Which characters are saving memories of the user right now (spec section 3, "Memories
 * state": isMemoriesSaving and saveMemoryType), one entry per character. A character has an
 * entry from the user's "save memories" (or its `memorySaving`) to its `memorySaved`, and no
 * entry otherwise: entries are removed once unused, so the map holds only saves in progress.
 *
 * A save goes on when its chat is closed, so the socket is followed here, for every
 * character, rather than by the open chat: coming back to a chat that is still saving
 * shows it saving, and the user who asked is told when it ends.
 */
import { memorySavesAtom, store } from '@/app/store';
import { i18n } from '@/lib/i18n';
import { notify } from '@/lib/notifications';
import { onServerEvent } from '@/lib/realtime';
import type { ServerEvent } from '@/lib/realtime-events';

/** Who started a save: the user's button, or the periodic extraction after a few replies. */
export type MemorySaveType = 'save' | 'auto';

export interface MemorySave {
  type: MemorySaveType;
  /** `saveMemories` was sent and its `memorySaving` has not come yet. */
  awaitingStart: boolean;
}

/** Saves in progress by characterId; a character without an entry is not saving. */
export type MemorySaves = ReadonlyMap<string, MemorySave>;

/** The user pressed "save memories" for a character and the action was sent. */
export interface SaveRequested {
  event: 'saveRequested';
  data: { characterId: string };
}

export interface MemorySavingStep {
  saves: MemorySaves;
  /** A save the user asked for ended, adding this many memories: the user is told. */
  answered?: { characterId: string; added: number };
}

function withEntry(saves: MemorySaves, characterId: string, entry: MemorySave | null): MemorySaves {
  const next = new Map(saves);
  if (entry) next.set(characterId, entry);
  else next.delete(characterId);
  return next;
}

/**
 * The saves after one request or socket event; the same map when nothing changed.
 *
 * A refused `saveMemories` answers `chatError` with `replyId` null and no `memorySaving`;
 * once `memorySaving` has come, only `memorySaved` (always sent when the extraction ends)
 * ends the save, so a refused send (40004, say) while the extraction runs leaves it alone.
 * `hello` (the socket came back) ends every save: a `memorySaved` may have gone by unheard.
 */
export function nextMemorySaves(saves: MemorySaves, event: ServerEvent | SaveRequested): MemorySavingStep {
  if (event.event === 'hello') return { saves: saves.size === 0 ? saves : new Map() };
  // Image events may have no character (`characterId: null`); none of them is a memory's.
  if (!('characterId' in event.data) || typeof event.data.characterId !== 'string') return { saves };
  const characterId: string = event.data.characterId;
  const current = saves.get(characterId);
  switch (event.event) {
    case 'saveRequested':
      return { saves: withEntry(saves, characterId, { type: 'save', awaitingStart: true }) };
    case 'memorySaving':
      // Not asked for here: the periodic extraction (or another tab's button).
      return { saves: withEntry(saves, characterId, { type: current?.type ?? 'auto', awaitingStart: false }) };
    case 'memorySaved':
      if (!current) return { saves };
      return {
        saves: withEntry(saves, characterId, null),
        answered: current.type === 'save' ? { characterId, added: event.data.added } : undefined,
      };
    case 'chatError':
      // The save itself was refused (the model was busy, say) before any extraction started.
      if (event.data.replyId === null && current?.awaitingStart) return { saves: withEntry(saves, characterId, null) };
      return { saves };
    default:
      return { saves };
  }
}

function apply(event: ServerEvent | SaveRequested) {
  const before = store.get(memorySavesAtom);
  const { saves, answered } = nextMemorySaves(before, event);
  if (saves !== before) store.set(memorySavesAtom, saves);
  if (answered) {
    if (answered.added > 0) notify.success(i18n.t('chat.memoriesSaved', { added: answered.added }));
    else notify.info(i18n.t('chat.noNewMemories'));
  }
}

/** Marks a character as saving at once, from the user's "save memories" that was sent. */
export function markSaveRequested(characterId: string): void {
  apply({ event: 'saveRequested', data: { characterId } });
}

let following = false;

/**
 * Follows the socket's memory events for every character from the first call on, for the
 * rest of the page's life (a save outlives the chat screen that started it).
 */
export function followMemorySaving(): void {
  if (following) return;
  following = true;
  onServerEvent(apply);
}

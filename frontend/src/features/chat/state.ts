/**
 * The chat's jotai atoms, read through src/app/store.ts. Both follow the socket for every
 * character (stores/memory-saving.ts and stores/recalled.ts feed them), because a save or a
 * reply may end while its chat is closed.
 */
import { atom } from 'jotai';
import type { MemorySaves } from '@/features/chat/stores/memory-saving';
import type { RecalledByReply } from '@/features/chat/stores/recalled';

/** Saves of memories in progress, by characterId. */
export const memorySavesAtom = atom<MemorySaves>(new Map());

/** What replies recalled, by the reply's messageId. */
export const recalledAtom = atom<RecalledByReply>(new Map());

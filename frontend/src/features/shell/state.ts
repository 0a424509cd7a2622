/** The shell's jotai atoms, read through src/app/store.ts. */
import { atom } from 'jotai';

/** Whether the side menu is folded to its icons on wide screens. */
export const pcMenuCollapsedAtom = atom(false);

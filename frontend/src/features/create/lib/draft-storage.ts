/**
 * The unfinished draft kept in this browser (spec section 3: "create-character data, plus a
 * guy variant and a generic one"), so that a reload, a language change or signing in on the
 * last step loses nothing. One entry per gender holds that gender's draft and the step it
 * was on; the generic entry holds what is not a gender's: which draft was open last (signing
 * in by mail lands on the girls' home, which forces the interested gender) and whether
 * Create waited for a sign-in. Local storage, or the 365-day cookie where there is none.
 */
import type { Draft } from '@/features/create/api/create-api';
import { isGenderValue, sanitizeDraft } from '@/features/create/lib/draft';
import { Gender, type GenderValue } from '@/lib/api-types';
import { STORAGE_KEYS, storage, type KeyValueStorage } from '@/lib/storage';

export interface StoredDraft {
  draft: Draft;
  /** The step the builder was on (0-based). */
  step: number;
}

export interface BuilderState {
  /** The gender whose draft was open last; null when none was. */
  gender: GenderValue | null;
  /** Create was pressed signed out: the login prompt was shown for it. */
  pendingCreate: boolean;
}

export function draftKey(gender: GenderValue): string {
  return gender === Gender.guys ? STORAGE_KEYS.createCharacterDataGuy : STORAGE_KEYS.createCharacterData;
}

function readJson(backend: KeyValueStorage, key: string): unknown {
  const raw = backend.get(key);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return null;
  }
}

/** The stored draft of `gender`, or null when there is none (or it cannot be read). */
export function loadDraft(gender: GenderValue, backend: KeyValueStorage = storage): StoredDraft | null {
  const stored = readJson(backend, draftKey(gender)) as { draft?: unknown; step?: unknown } | null;
  if (!stored || typeof stored !== 'object' || !stored.draft) return null;
  const step = Number(stored.step);
  return { draft: sanitizeDraft(stored.draft, gender), step: Number.isInteger(step) && step >= 0 ? step : 0 };
}

export function saveDraft(gender: GenderValue, value: StoredDraft, backend: KeyValueStorage = storage): void {
  try {
    backend.set(draftKey(gender), JSON.stringify({ draft: { ...value.draft, gender }, step: value.step }));
  } catch {
    // Storage full or refused: the builder goes on; only the safety net is lost.
  }
}

export function clearDraft(gender: GenderValue, backend: KeyValueStorage = storage): void {
  backend.remove(draftKey(gender));
}

export function loadBuilderState(backend: KeyValueStorage = storage): BuilderState {
  const stored = readJson(backend, STORAGE_KEYS.createCharacterDataCommon) as Partial<BuilderState> | null;
  return {
    gender: isGenderValue(stored?.gender) ? stored.gender : null,
    pendingCreate: stored?.pendingCreate === true,
  };
}

export function saveBuilderState(state: BuilderState, backend: KeyValueStorage = storage): void {
  try {
    backend.set(STORAGE_KEYS.createCharacterDataCommon, JSON.stringify(state));
  } catch {
    // As above.
  }
}

/** After a character is created: that gender's draft and the builder's state are gone. */
export function clearAfterCreate(gender: GenderValue, backend: KeyValueStorage = storage): void {
  clearDraft(gender, backend);
  backend.remove(STORAGE_KEYS.createCharacterDataCommon);
}

import { useCallback, useEffect, useRef, useState } from 'react';
import type { Draft } from '@/features/create/api/create-api';
import { blankDraft } from '@/features/create/lib/draft';
import { loadDraft, saveDraft, type StoredDraft } from '@/features/create/lib/draft-storage';
import { Gender, type GenderValue } from '@/lib/api-types';

/** What the builder works on: a new character (kept in storage) or one being edited. */
export type BuilderMode = { kind: 'create' } | { kind: 'edit'; characterId: string; initial: Draft };

function initial(mode: BuilderMode, gender: GenderValue): StoredDraft {
  if (mode.kind === 'edit') return { draft: mode.initial, step: 0 };
  return loadDraft(gender) ?? { draft: blankDraft(gender), step: 0 };
}

/**
 * The draft of each gender and the step it is on. A new character's draft is written to
 * storage on every change (the spec's create-character data and its guy variant), so the
 * other gender's draft waits untouched while the header's switch shows this one; an edited
 * character's draft lives only here.
 */
export function useBuilderDraft(mode: BuilderMode, gender: GenderValue) {
  const [drafts, setDrafts] = useState<Record<GenderValue, StoredDraft>>(() => ({
    [Gender.girls]: initial(mode, Gender.girls),
    [Gender.guys]: initial(mode, Gender.guys),
  }));
  const persist = mode.kind === 'create';
  const current = drafts[gender];
  const last = useRef(current);

  // Written after render, once per change of the shown draft.
  useEffect(() => {
    if (persist && last.current !== current) saveDraft(gender, current);
    last.current = current;
  }, [persist, gender, current]);

  const update = useCallback(
    (change: (draft: Draft) => Draft) =>
      setDrafts((all) => ({ ...all, [gender]: { ...all[gender], draft: change(all[gender].draft) } })),
    [gender],
  );
  const setStep = useCallback(
    (step: number) => setDrafts((all) => ({ ...all, [gender]: { ...all[gender], step } })),
    [gender],
  );
  /** Starts this gender over (after creating). */
  const reset = useCallback(
    () => setDrafts((all) => ({ ...all, [gender]: { draft: blankDraft(gender), step: 0 } })),
    [gender],
  );

  return { draft: current.draft, step: current.step, update, setStep, reset };
}

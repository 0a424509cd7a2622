import { describe, expect, it } from 'vitest';
import { blankDraft, withDefaults } from '@/features/create/lib/draft';
import {
  clearAfterCreate,
  draftKey,
  loadBuilderState,
  loadDraft,
  saveBuilderState,
  saveDraft,
} from '@/features/create/lib/draft-storage';
import { completeDraft, optionsFor } from '@/features/create/lib/test-fixtures';
import { Gender } from '@/lib/api-types';
import { createCookieStorage, createStorage, STORAGE_KEYS } from '@/lib/storage';

describe('the builder’s draft in storage', () => {
  it('keeps one draft per gender under the spec’s create-character entries', () => {
    const backend = createStorage();
    const girl = completeDraft(Gender.girls);
    const guy = { ...completeDraft(Gender.guys), characterName: 'Noah' };
    saveDraft(Gender.girls, { draft: girl, step: 5 }, backend);
    saveDraft(Gender.guys, { draft: guy, step: 2 }, backend);
    expect(draftKey(Gender.girls)).toBe(STORAGE_KEYS.createCharacterData);
    expect(draftKey(Gender.guys)).toBe(STORAGE_KEYS.createCharacterDataGuy);
    expect(window.localStorage.getItem('createCharacterData')).toContain('"Lena"');
    expect(window.localStorage.getItem('createCharacterDataGuy')).toContain('"Noah"');

    // A reload reads them back as they were, each with its own step.
    const reloaded = createStorage();
    expect(loadDraft(Gender.girls, reloaded)).toEqual({ draft: girl, step: 5 });
    expect(loadDraft(Gender.guys, reloaded)).toEqual({ draft: guy, step: 2 });
  });

  it('falls back to the 365-day cookie where local storage is not usable', () => {
    const cookies = createCookieStorage(document);
    saveDraft(Gender.girls, { draft: { ...completeDraft(), greeting: 'Hi; {{user}} = you' }, step: 3 }, cookies);
    expect(document.cookie).toContain('createCharacterData=');
    expect(loadDraft(Gender.girls, createCookieStorage(document))?.draft.greeting).toBe('Hi; {{user}} = you');
    cookies.remove(STORAGE_KEYS.createCharacterData);
    expect(loadDraft(Gender.girls, cookies)).toBeNull();
  });

  it('reads a damaged or foreign entry as blank values instead of failing', () => {
    const backend = createStorage();
    window.localStorage.setItem('createCharacterData', '{not json');
    expect(loadDraft(Gender.girls, backend)).toBeNull();
    window.localStorage.setItem(
      'createCharacterData',
      JSON.stringify({
        draft: {
          characterName: 7,
          looks: { age: 'x', eyes: 'blue' },
          tags: ['a', 3],
          nsfw: 'yes',
          visibility: 'everyone',
          gender: 1,
        },
        step: -2,
      }),
    );
    const read = loadDraft(Gender.girls, backend)!;
    expect(read.step).toBe(0);
    expect(read.draft).toEqual({
      ...blankDraft(Gender.girls),
      looks: { ...blankDraft(Gender.girls).looks, eyes: 'blue' },
      tags: ['a'],
    });
  });

  it('remembers which draft was open and whether Create waited for a sign-in, and forgets a created one', () => {
    const backend = createStorage();
    expect(loadBuilderState(backend)).toEqual({ gender: null, pendingCreate: false });
    saveBuilderState({ gender: Gender.guys, pendingCreate: true }, backend);
    expect(window.localStorage.getItem('createCharacterDataCommon')).not.toBeNull();
    expect(loadBuilderState(createStorage())).toEqual({ gender: Gender.guys, pendingCreate: true });
    saveDraft(Gender.guys, { draft: completeDraft(Gender.guys), step: 5 }, backend);
    saveDraft(Gender.girls, { draft: completeDraft(Gender.girls), step: 1 }, backend);

    clearAfterCreate(Gender.guys, backend);
    expect(loadDraft(Gender.guys, backend)).toBeNull();
    expect(loadBuilderState(backend)).toEqual({ gender: null, pendingCreate: false });
    // The other gender's draft is another character: it stays.
    expect(loadDraft(Gender.girls, backend)?.step).toBe(1);
  });
});

describe('defaults from the options', () => {
  it('fills empty and unknown looks with the first choice and the voice of the draft’s gender, and leaves personality to the user', () => {
    const filled = withDefaults(
      { ...blankDraft(Gender.guys), looks: { ...blankDraft(Gender.guys).looks, eyes: 'blue', hairStyle: 'long-wavy' } },
      optionsFor(Gender.guys),
    );
    expect(filled.style).toBe('realistic');
    expect(filled.looks).toEqual({
      age: 22,
      ethnicity: 'european',
      eyes: 'blue',
      hairColor: 'black',
      hairStyle: 'quiff',
      body: 'slim',
      outfit: 'casual',
    });
    expect(filled.voiceId).toBe('m1');
    expect(filled.personality.preset).toBe('');
    expect(filled.relationship.preset).toBe('');
  });
});

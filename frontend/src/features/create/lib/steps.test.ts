import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '@/features/create/api/create-api';
import { blankDraft } from '@/features/create/lib/draft';
import {
  firstInvalidStep,
  isValidTag,
  parseServerError,
  stepOfField,
  STEPS,
  validateStep,
} from '@/features/create/lib/steps';
import { completeDraft } from '@/features/create/lib/test-fixtures';
import { Gender } from '@/lib/api-types';

const limits = DEFAULT_LIMITS;

describe('step validation', () => {
  it('accepts a complete draft on every step', () => {
    for (const step of STEPS) expect(validateStep(step, completeDraft(), limits)).toEqual({});
    expect(firstInvalidStep(completeDraft(), limits)).toBeNull();
  });

  it('asks for an adult age, whole and within the limits', () => {
    for (const age of [17, 0, 101, 18.5]) {
      const draft = completeDraft();
      expect(validateStep('looks', { ...draft, looks: { ...draft.looks, age } }, limits)).toEqual({
        'looks.age': { key: 'age', values: { min: 18, max: 100 } },
      });
    }
    const draft = completeDraft();
    expect(validateStep('looks', { ...draft, looks: { ...draft.looks, age: 18 } }, limits)).toEqual({});
    expect(validateStep('looks', { ...draft, looks: { ...draft.looks, age: 100 } }, limits)).toEqual({});
  });

  it('names each missing choice and each text that is missing or too long', () => {
    const blank = blankDraft(Gender.girls);
    // A blank draft has the server's default style (docs/api.md `Draft`); none is a missing choice.
    expect(validateStep('style', blank, limits)).toEqual({});
    expect(validateStep('style', { ...blank, style: '' as never }, limits)).toEqual({ style: { key: 'pick' } });
    expect(Object.keys(validateStep('looks', blank, limits)).sort()).toEqual([
      'looks.body',
      'looks.ethnicity',
      'looks.eyes',
      'looks.hairColor',
      'looks.hairStyle',
      'looks.outfit',
    ]);
    expect(
      validateStep('personality', { ...blank, personality: { preset: 'shy', text: 'x'.repeat(1001) } }, limits),
    ).toEqual({
      'personality.text': { key: 'tooLong', values: { max: 1000 } },
      'relationship.preset': { key: 'pick' },
    });
    expect(validateStep('voice', blank, limits)).toEqual({ voiceId: { key: 'pick' } });
    // With no voice for the gender the server picks one: nothing to ask for.
    expect(validateStep('voice', blank, limits, { voices: 0 })).toEqual({});
    expect(
      validateStep(
        'story',
        {
          ...completeDraft(),
          characterName: '   ',
          introduction: 'x'.repeat(301),
          greeting: '',
          scenario: 'y'.repeat(2001),
        },
        limits,
      ),
    ).toEqual({
      characterName: { key: 'required' },
      introduction: { key: 'tooLong', values: { max: 300 } },
      greeting: { key: 'required' },
      scenario: { key: 'tooLong', values: { max: 2000 } },
    });
  });

  it('checks tags as the catalogue takes them', () => {
    expect(isValidTag('Slow burn')).toBe(true);
    expect(isValidTag('café_lover-2')).toBe(true);
    expect(isValidTag('no!')).toBe(false);
    expect(isValidTag('   ')).toBe(false);
    expect(isValidTag('x'.repeat(31))).toBe(false);
    expect(validateStep('story', { ...completeDraft(), tags: ['ok', 'bad<tag>'] }, limits)).toEqual({
      tags: { key: 'tagInvalid' },
    });
    expect(
      validateStep('story', { ...completeDraft(), tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, limits),
    ).toEqual({ tags: { key: 'tooManyTags', values: { max: 10 } } });
  });

  it('finds the first step with a problem', () => {
    const draft = { ...completeDraft(), voiceId: '', greeting: '' };
    expect(firstInvalidStep(draft, limits)).toEqual({
      step: STEPS.indexOf('voice'),
      errors: { voiceId: { key: 'pick' } },
    });
  });
});

describe('server refusals', () => {
  it('are placed at the field their message names, on its step', () => {
    expect(parseServerError('greeting: This content is not allowed by the community guidelines')).toEqual({
      field: 'greeting',
      message: 'This content is not allowed by the community guidelines',
    });
    expect(parseServerError('looks.age: must be from 18 to 100')).toEqual({
      field: 'looks.age',
      message: 'must be from 18 to 100',
    });
    expect(parseServerError('draft.characterName: 1–40 characters')).toEqual({
      field: 'characterName',
      message: '1–40 characters',
    });
    expect(parseServerError('tags[3]: bad tag')).toEqual({ field: 'tags', message: 'bad tag' });
    expect(parseServerError('looks: the portrait prompt is not allowed')).toEqual({
      field: 'looks.ethnicity',
      message: 'the portrait prompt is not allowed',
    });
    expect(parseServerError('personality: unknown preset "x"').field).toBe('personality.preset');
    expect(stepOfField('greeting')).toBe(STEPS.indexOf('story'));
    expect(stepOfField('looks.age')).toBe(STEPS.indexOf('looks'));
    expect(stepOfField('relationship.text')).toBe(STEPS.indexOf('personality'));
  });

  it('without a field the form knows, are kept whole for the top of the form', () => {
    expect(parseServerError('This content is not allowed')).toEqual({
      field: null,
      message: 'This content is not allowed',
    });
    expect(parseServerError('payload: missing field `draft`')).toEqual({
      field: null,
      message: 'payload: missing field `draft`',
    });
  });
});

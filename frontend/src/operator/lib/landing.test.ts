import { describe, expect, it } from 'vitest';
import { asCopy, copyProblems, LIMITS, pointsFromLines } from '@/operator/lib/landing';

const copy = { heading: 'H', intro: 'I', points: ['p'], faq: [{ q: 'Q?', a: 'A.' }] };

describe('landing copy', () => {
  it('finds what the server would refuse, naming the field', () => {
    expect(copyProblems(copy)).toEqual([]);
    expect(copyProblems({ ...copy, heading: ' ' })).toEqual(['heading: required, 1 to 200 characters']);
    expect(copyProblems({ ...copy, intro: 'x'.repeat(LIMITS.intro + 1) })).toEqual([
      'intro: required, 1 to 2000 characters',
    ]);
    expect(copyProblems({ ...copy, faq: [{ q: 'Q', a: '' }] })).toEqual(['faq[0].a: required, 1 to 2000 characters']);
    expect(copyProblems({ ...copy, points: Array.from({ length: 11 }, () => 'p') })).toEqual(['points: at most 10']);
  });

  it('reads a published or shipped copy, and refuses another shape', () => {
    expect(asCopy(copy)).toEqual(copy);
    expect(asCopy({ heading: 'H', intro: 'I', points: 'p', faq: [] })).toBeNull();
    expect(asCopy(null)).toBeNull();
  });

  it('takes the points one a line, blank lines dropped', () => {
    expect(pointsFromLines(' one \n\ntwo\n')).toEqual(['one', 'two']);
  });
});

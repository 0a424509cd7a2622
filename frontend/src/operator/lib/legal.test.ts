import { describe, expect, it } from 'vitest';
import { parseLegalJson } from '@/operator/lib/legal';
import legal from '../../../public/locales/en/legal.json';

describe('legal text validation', () => {
  it('accepts every bundled English document', () => {
    for (const [key, text] of Object.entries(legal.docs)) {
      expect(parseLegalJson(JSON.stringify(text)), key).toHaveProperty('text');
    }
  });

  it('names the first problem', () => {
    expect(parseLegalJson('{')).toEqual({ problem: expect.stringMatching(/^Not valid JSON/) });
    expect(parseLegalJson('{"title":"T","intro":"","sections":[]}')).toEqual({ problem: 'sections: a non-empty list' });
    expect(
      parseLegalJson('{"title":"T","intro":"","sections":[{"heading":"H","paragraphs":["p"],"items":[1]}]}'),
    ).toEqual({ problem: 'sections[0].items: a list of strings' });
  });
});

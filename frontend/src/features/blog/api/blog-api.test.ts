import { describe, expect, it } from 'vitest';
import { formatPostDate } from '@/features/blog/api/blog-api';

describe('formatPostDate', () => {
  it('writes the day in the reader language without a time-zone shift', () => {
    expect(formatPostDate('2024-10-21', 'en')).toBe('October 21, 2024');
    expect(formatPostDate('2024-01-01', 'de')).toBe('1. Januar 2024');
  });

  it('leaves a malformed date as it is', () => {
    expect(formatPostDate('someday', 'en')).toBe('someday');
  });
});

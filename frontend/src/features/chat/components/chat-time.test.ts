import { describe, expect, it } from 'vitest';
import { formatListTime } from '@/features/chat/components/chat-time';

describe('formatListTime', () => {
  const now = new Date(2026, 10, 23, 18, 30).getTime();

  it('shows the time for today, the day for this year, the date before', () => {
    expect(formatListTime(new Date(2026, 10, 23, 9, 5).getTime(), 'en', now)).toMatch(/09:05/);
    expect(formatListTime(new Date(2026, 2, 4, 9, 5).getTime(), 'en', now)).toBe('Mar 4');
    expect(formatListTime(new Date(2025, 2, 4).getTime(), 'en', now)).toMatch(/25/);
  });

  it('follows the language', () => {
    expect(formatListTime(new Date(2026, 2, 4).getTime(), 'de', now)).toMatch(/4\. März/);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { store, userInfoAtom } from '@/app/store';
import { buildErrorReport, errorDetails } from '@/lib/error-report';

afterEach(() => store.set(userInfoAtom, null));

describe('error reports (spec section 3)', () => {
  it('carry every field of ErrorReport', () => {
    vi.spyOn(Date, 'now').mockReturnValue(1_700_000_000_000);
    store.set(userInfoAtom, {
      userId: 'u-1',
      userNo: 'A1',
      userName: 'Alex',
      email: null,
      discordEmail: null,
      appleEmail: null,
      userVipType: 0,
      coin: 0,
      userAvatar: '',
      utmSource: '',
      interestedGender: 0,
      nsfw: false,
    });
    const report = buildErrorReport(errorDetails('renderError', new TypeError('x is undefined')));
    expect(report).toEqual({
      errorType: 'renderError',
      message: 'TypeError: x is undefined',
      userAgent: navigator.userAgent,
      url: window.location.href,
      userId: 'u-1',
      timestamp: 1_700_000_000_000,
      stack: expect.stringContaining('TypeError'),
    });
  });

  it('describe non-Error values too', () => {
    expect(errorDetails('unhandledRejection', 'plain text')).toEqual({
      errorType: 'unhandledRejection',
      message: 'plain text',
    });
  });
});

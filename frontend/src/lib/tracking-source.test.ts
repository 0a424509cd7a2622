import { describe, expect, it } from 'vitest';
import { STORAGE_KEYS } from '@/lib/storage';
import { captureTrackingSource, resolveTrackingSource, storedTrackingSource } from '@/lib/tracking-source';

const resolve = (query: string) => resolveTrackingSource(new URLSearchParams(query));

describe('traffic source priority (API.md section 6)', () => {
  it('prefers via, then ref, then utm_source', () => {
    expect(resolve('via=a&ref=b&utm_source=c')?.source).toBe('a');
    expect(resolve('ref=b&utm_source=c')?.source).toBe('b');
    expect(resolve('utm_source=c')?.source).toBe('c');
  });

  it("falls back to 'impact' when only a click id is present", () => {
    expect(resolve('irclickid=xyz')).toEqual({ source: 'impact', medium: 'impact' });
    expect(resolve('utm_source=c&irclickid=xyz')?.source).toBe('c');
  });

  it('takes the medium from utm_medium, then md, else the source', () => {
    expect(resolve('via=a&utm_medium=m&md=d')?.medium).toBe('m');
    expect(resolve('via=a&md=d')?.medium).toBe('d');
    expect(resolve('via=a')?.medium).toBe('a');
  });

  it('ignores empty values and unmarked visits', () => {
    expect(resolve('via=&ref=b')?.source).toBe('b');
    expect(resolve('foo=bar')).toBeNull();
  });

  it('stores what it found and keeps the old values on an unmarked visit', () => {
    captureTrackingSource('?ref=blog&utm_medium=post');
    expect(window.localStorage.getItem(STORAGE_KEYS.utmSource)).toBe('blog');
    captureTrackingSource('?page=2');
    expect(storedTrackingSource()).toEqual({ source: 'blog', medium: 'post' });
  });
});

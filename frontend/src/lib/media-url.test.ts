import { describe, expect, it } from 'vitest';
import { mediaUrl } from '@/lib/media-url';

const origin = 'https://amora.example';

describe('mediaUrl (spec section 9: width 750 by default)', () => {
  it('asks for width 750 of the site’s own media', () => {
    expect(mediaUrl('/media/img-1763', undefined, { origin })).toBe('/media/img-1763?w=750');
    expect(mediaUrl('https://amora.example/media/img-1763', undefined, { origin })).toBe(
      'https://amora.example/media/img-1763?w=750',
    );
  });

  it('asks for another allowed width when told, replacing one already there', () => {
    expect(mediaUrl('/media/img-1?w=160', 1080, { origin })).toBe('/media/img-1?w=1080');
    expect(mediaUrl('/media/img-1?x=1', 320, { origin })).toBe('/media/img-1?x=1&w=320');
  });

  it('leaves GIF, WebP and SVG as they are, by extension or by the format given', () => {
    expect(mediaUrl('/media/anim.gif', undefined, { origin })).toBe('/media/anim.gif');
    expect(mediaUrl('/media/pic.WEBP', undefined, { origin })).toBe('/media/pic.WEBP');
    expect(mediaUrl('/media/portrait.svg', undefined, { origin })).toBe('/media/portrait.svg');
    expect(mediaUrl('/media/img-2', undefined, { origin, format: 'image/webp' })).toBe('/media/img-2');
    expect(mediaUrl('/media/img-2', undefined, { origin, format: 'image/gif' })).toBe('/media/img-2');
    expect(mediaUrl('/media/img-2', undefined, { origin, format: 'image/png' })).toBe('/media/img-2?w=750');
  });

  it('leaves images hosted elsewhere, and data and blob URLs, as they are', () => {
    expect(mediaUrl('https://cdn.example.net/media/img-1.png', undefined, { origin })).toBe(
      'https://cdn.example.net/media/img-1.png',
    );
    expect(mediaUrl('//cdn.example.net/media/img-1', undefined, { origin })).toBe('//cdn.example.net/media/img-1');
    expect(mediaUrl('data:image/png;base64,AAAA', undefined, { origin })).toBe('data:image/png;base64,AAAA');
  });

  it('leaves the build’s own files and empty URLs alone', () => {
    expect(mediaUrl('/assets/login-art-01.svg', undefined, { origin })).toBe('/assets/login-art-01.svg');
    expect(mediaUrl('/assets/banner.png', undefined, { origin })).toBe('/assets/banner.png');
    expect(mediaUrl('', undefined, { origin })).toBe('');
  });
});

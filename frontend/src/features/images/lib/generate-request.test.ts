import { describe, expect, it } from 'vitest';
import { buildRequest } from '@/features/images/lib/generate-request';

const none = { scenes: null, outfits: null, poses: null, styles: null };

describe('the generate request', () => {
  it('sends the chosen presets under their payload names, the trimmed prompt and the count', () => {
    expect(buildRequest('gf-001', { ...none, scenes: 'beach', styles: 'anime' }, '  smiling  ', 2)).toEqual({
      characterId: 'gf-001',
      scene: 'beach',
      style: 'anime',
      prompt: 'smiling',
      count: 2,
    });
  });

  it('needs a preset or a prompt; a character alone is not enough', () => {
    expect(buildRequest('gf-001', none, '   ', 1)).toBeNull();
    expect(buildRequest(null, { ...none, poses: 'selfie' }, '', 4)).toEqual({ pose: 'selfie', count: 4 });
    expect(buildRequest(null, none, 'a lighthouse', 1)).toEqual({ prompt: 'a lighthouse', count: 1 });
  });

  it('refuses a prompt over 500 characters', () => {
    expect(buildRequest(null, none, 'x'.repeat(500), 1)).not.toBeNull();
    expect(buildRequest(null, none, 'x'.repeat(501), 1)).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { parseTagged } from '@/features/legal/lib/legal-docs';

describe('tagged legal text', () => {
  it('splits links out of a paragraph', () => {
    expect(parseTagged('Read the <privacy>Privacy Policy</privacy> and <mail>x@y.z</mail>.')).toEqual([
      { text: 'Read the ' },
      { tag: 'privacy', text: 'Privacy Policy' },
      { text: ' and ' },
      { tag: 'mail', text: 'x@y.z' },
      { text: '.' },
    ]);
  });

  it('keeps a paragraph without tags whole', () => {
    expect(parseTagged('Adults only.')).toEqual([{ text: 'Adults only.' }]);
  });
});

describe('legal documents', () => {
  it('each has its text in the legal namespace and its title, description and keywords under seo.<key>', async () => {
    const legal = (await import('../../../../public/locales/en/legal.json')).default as {
      docs: Record<string, unknown>;
    };
    const translation = (await import('../../../../public/locales/en/translation.json')).default as unknown as {
      seo: Record<string, Record<string, string>>;
    };
    const { LEGAL_DOCS } = await import('@/features/legal/lib/legal-docs');
    expect(Object.keys(legal.docs).sort()).toEqual(Object.keys(LEGAL_DOCS).sort());
    for (const key of [...Object.keys(LEGAL_DOCS), 'blog']) {
      expect(Object.keys(translation.seo[key] ?? {}).sort(), `seo.${key}`).toEqual([
        'description',
        'keywords',
        'title',
      ]);
    }
  });
});

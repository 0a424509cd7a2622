import { describe, expect, it } from 'vitest';
import { languageFromPath, LANGUAGES, stripLanguage, withLanguage } from '@/lib/languages';

describe('language in the first path segment', () => {
  it('knows the ten product languages', () => {
    expect([...LANGUAGES]).toEqual(['en', 'de', 'es', 'fr', 'id', 'it', 'ja', 'ko', 'pl', 'pt']);
  });

  it('reads a supported code and ignores anything else', () => {
    expect(languageFromPath('/de/')).toBe('de');
    expect(languageFromPath('/ja/ai-boyfriend')).toBe('ja');
    expect(languageFromPath('/pt')).toBe('pt');
    expect(languageFromPath('/chat/de')).toBeNull();
    expect(languageFromPath('/xx/')).toBeNull();
    expect(languageFromPath('/')).toBeNull();
  });

  it('strips and adds the prefix', () => {
    expect(stripLanguage('/de/ai-boyfriend')).toBe('/ai-boyfriend');
    expect(stripLanguage('/de/')).toBe('/');
    expect(stripLanguage('/de')).toBe('/');
    expect(stripLanguage('/ai-boyfriend')).toBe('/ai-boyfriend');
    expect(withLanguage('/', 'de')).toBe('/de/');
    expect(withLanguage('/pricing', 'ko')).toBe('/ko/pricing');
    expect(withLanguage('/pricing', null)).toBe('/pricing');
  });
});

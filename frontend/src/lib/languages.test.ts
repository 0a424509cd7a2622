import { describe, expect, it } from 'vitest';
import { languageFromPath, LANGUAGES, pathInLanguage, stripLanguage, withLanguage } from '@/lib/languages';

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

describe('switching the language of a page', () => {
  it('puts English at the unprefixed address and others under their prefix', () => {
    expect(pathInLanguage('/de/chat/gf-001', 'en')).toBe('/chat/gf-001');
    expect(pathInLanguage('/de/', 'en')).toBe('/');
    expect(pathInLanguage('/setting', 'en')).toBe('/setting');
    expect(pathInLanguage('/chat/gf-001', 'fr')).toBe('/fr/chat/gf-001');
    expect(pathInLanguage('/fr/chat/gf-001', 'ja')).toBe('/ja/chat/gf-001');
    expect(pathInLanguage('/', 'pl')).toBe('/pl/');
  });

  it('never stacks prefixes, whatever the address held', () => {
    expect(stripLanguage('/en/en/chat')).toBe('/chat');
    expect(pathInLanguage('/en/chat', 'en')).toBe('/chat');
    expect(pathInLanguage('/en/en/chat', 'de')).toBe('/de/chat');
    expect(pathInLanguage('/en/de/', 'en')).toBe('/');
  });
});

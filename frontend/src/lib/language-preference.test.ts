import { beforeEach, describe, expect, it } from 'vitest';
import { languageForPath, preferredLocation, rememberedLanguage, rememberLanguage } from '@/lib/language-preference';
import { storage } from '@/lib/storage';

beforeEach(() => window.localStorage.clear());

describe('the remembered language', () => {
  it('is nothing until a visitor picks one', () => {
    expect(rememberedLanguage()).toBeNull();
    expect(languageForPath('/')).toBe('en');
    expect(preferredLocation('/')).toBeNull();
  });

  it('sends / and other unprefixed paths to the picked language', () => {
    rememberLanguage('fr');
    expect(rememberedLanguage()).toBe('fr');
    expect(languageForPath('/')).toBe('fr');
    expect(preferredLocation('/')).toBe('/fr/');
    expect(preferredLocation('/ai-boyfriend')).toBe('/fr/ai-boyfriend');
  });

  it('never overrides a language the URL names', () => {
    rememberLanguage('fr');
    expect(languageForPath('/de/ai-boyfriend')).toBe('de');
    expect(preferredLocation('/de/ai-boyfriend')).toBeNull();
    expect(preferredLocation('/en/')).toBeNull();
  });

  it('leaves unprefixed paths alone once English is picked again', () => {
    rememberLanguage('fr');
    rememberLanguage('en');
    expect(preferredLocation('/')).toBeNull();
    expect(languageForPath('/')).toBe('en');
  });

  it('ignores a stored value that is not one of the ten languages', () => {
    storage.set('language', 'xx');
    expect(rememberedLanguage()).toBeNull();
    expect(preferredLocation('/')).toBeNull();
  });
});

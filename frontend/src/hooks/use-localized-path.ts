import { useCallback } from 'react';
import { useLocation } from 'react-router';
import { languageFromPath, stripLanguage, withLanguage } from '@/lib/languages';

/**
 * Internal paths keep the language prefix the visitor arrived with, so that `/de/` stays
 * German while navigating and after a reload.
 */
export function useLocalizedPath() {
  const { pathname } = useLocation();
  const prefix = languageFromPath(pathname);
  return useCallback((path: string) => (path.startsWith('/') ? withLanguage(path, prefix) : path), [prefix]);
}

/** The current path without its language prefix: what route rules look at. */
export function useRoutePath(): string {
  return stripLanguage(useLocation().pathname);
}

import { useAtomValue, useSetAtom } from 'jotai';
import { useCallback } from 'react';
import { isLoggedInAtom, showLoginTipAtom } from '@/app/store';

/**
 * Menu guard (spec section 5): returns a function that tells whether the visitor may go on;
 * when signed out it opens the login prompt instead.
 */
export function useRequireLogin(): () => boolean {
  const loggedIn = useAtomValue(isLoggedInAtom);
  const openLogin = useSetAtom(showLoginTipAtom);
  return useCallback(() => {
    if (loggedIn) return true;
    openLogin(true);
    return false;
  }, [loggedIn, openLogin]);
}

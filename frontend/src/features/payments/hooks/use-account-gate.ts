import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect } from 'react';
import { gettingUserAtom, showLoginTipAtom, userInfoAtom, userInfoFetchedAtom } from '@/app/store';
import type { UserInfo } from '@/lib/api-types';

/** Who is looking at a payment screen: not known yet, signed out, a free or a paid user. */
export type AccountGate = 'checking' | 'signedOut' | 'free' | 'paid';

export function accountGate(fetched: boolean, getting: boolean, user: UserInfo | null): AccountGate {
  if (!fetched || (getting && !user)) return 'checking';
  if (!user) return 'signedOut';
  return user.userVipType > 0 ? 'paid' : 'free';
}

/**
 * The payment screens' guard (spec sections 5 and 6): a signed-out visitor gets the login
 * prompt once on arrival (signing in brings them back to the same page), and the screen
 * shows what the returned gate allows.
 */
export function useAccountGate(): AccountGate {
  const fetched = useAtomValue(userInfoFetchedAtom);
  const getting = useAtomValue(gettingUserAtom);
  const user = useAtomValue(userInfoAtom);
  const openLogin = useSetAtom(showLoginTipAtom);
  const gate = accountGate(fetched, getting, user);
  useEffect(() => {
    if (gate === 'signedOut') openLogin(true);
  }, [gate, openLogin]);
  return gate;
}

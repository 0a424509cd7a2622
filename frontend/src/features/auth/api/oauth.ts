/**
 * Redirect sign-in with Google and Discord (spec section 6). The browser navigates to the
 * server, which adds the client id, scopes, nonce and state and sends the visitor on to the
 * provider; the provider returns to the server's callback, which sets the session and
 * redirects back to `state`, the page the visitor was on (same origin only).
 */
import { apiBaseUrl } from '@/lib/api-client';

export type SignInProvider = 'google' | 'discord';

const START_PATHS: Record<SignInProvider, string> = {
  google: '/googleLogin',
  discord: '/discordLogin',
};

/** Where the browser goes to start signing in with `provider`, returning to `currentUrl`. */
export function providerSignInUrl(provider: SignInProvider, currentUrl: string): string {
  return `${apiBaseUrl()}${START_PATHS[provider]}?state=${encodeURIComponent(currentUrl)}`;
}

/**
 * Redirect sign-in with Google and Discord (spec section 6). The provider sends the visitor
 * back to the server's callback, which sets the session and redirects to `state`, the page
 * the visitor was on.
 */
import { API_PREFIX } from '@/lib/api-client';

const GOOGLE_AUTHORIZE_URL = 'https://accounts.google.com/o/oauth2/v2/auth';
const DISCORD_AUTHORIZE_URL = 'https://discord.com/oauth2/authorize';

function randomNonce(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

export function googleAuthorizeUrl(clientId: string, origin: string, currentUrl: string, nonce: string = randomNonce()): string {
  const params = new URLSearchParams({
    client_id: clientId,
    redirect_uri: `${origin}${API_PREFIX}/googleLoginBack`,
    response_type: 'code',
    scope: 'openid profile email',
    nonce,
    state: currentUrl,
  });
  return `${GOOGLE_AUTHORIZE_URL}?${params.toString()}`;
}

export function discordAuthorizeUrl(clientId: string, origin: string, currentUrl: string): string {
  const params = new URLSearchParams({
    client_id: clientId,
    redirect_uri: `${origin}${API_PREFIX}/discordLoginBack`,
    response_type: 'code',
    scope: 'identify email',
    state: currentUrl,
  });
  return `${DISCORD_AUTHORIZE_URL}?${params.toString()}`;
}

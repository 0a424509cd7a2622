/**
 * The signed-in user (spec section 3 "User state"): who it is, whether it is being fetched,
 * and the session actions every screen shares (refresh, logout).
 */
import { gettingUserAtom, store, userInfoAtom, userInfoFetchedAtom } from '@/app/store';
import { apiGet, resetDistinctId } from '@/lib/api-client';
import { ApiCode, type UserInfo } from '@/lib/api-types';
import { i18n } from '@/lib/i18n';
import { languageFromPath, withLanguage } from '@/lib/languages';
import { notify } from '@/lib/notifications';
import { pageNavigation } from '@/lib/page-navigation';
import { STORAGE_KEYS, storage } from '@/lib/storage';

export function fetchUserInfo(options: { quiet?: boolean } = {}) {
  return apiGet<UserInfo | null>('/user/v1/getUserInfo', undefined, options);
}

/** Fetches the current user; a failure leaves the visitor signed out. */
export async function loadUserInfo(): Promise<UserInfo | null> {
  store.set(gettingUserAtom, true);
  try {
    const envelope = await fetchUserInfo();
    const user = envelope.success ? (envelope.data ?? null) : null;
    store.set(userInfoAtom, user);
    return user;
  } catch {
    store.set(userInfoAtom, null);
    return null;
  } finally {
    store.set(gettingUserAtom, false);
    store.set(userInfoFetchedAtom, true);
  }
}

/**
 * Refetches the current user without the loading state of the first fetch, so that the
 * header only changes where the data did (spec section 4: the balance refreshes on a
 * token-count event by refetching user info). Calls while one is running ask for one more
 * round after it instead of racing it, so the last answer applied is never older than the
 * last call. A signed-out answer (no session, or `tokenInvalid`) signs the visitor out; a
 * failure to reach the server keeps what is shown.
 */
export function refreshUserInfo(): Promise<void> {
  if (refreshInFlight) {
    refreshAgain = true;
    return refreshInFlight;
  }
  refreshInFlight = (async () => {
    do {
      refreshAgain = false;
      await refreshOnce();
    } while (refreshAgain);
  })().finally(() => {
    refreshInFlight = null;
  });
  return refreshInFlight;
}

let refreshInFlight: Promise<void> | null = null;
let refreshAgain = false;

async function refreshOnce(): Promise<void> {
  try {
    const envelope = await fetchUserInfo({ quiet: true });
    if (envelope.success) store.set(userInfoAtom, envelope.data ?? null);
    else if (envelope.code === ApiCode.tokenInvalid) store.set(userInfoAtom, null);
  } catch {
    // Offline for a moment: the next event or reconnect refetches.
  }
}

/** The first e-mail the user has, which telemetry sends hashed (spec section 3). */
export function trackingEmail(user: UserInfo | null): string | null {
  return user?.email || user?.discordEmail || user?.appleEmail || null;
}

/**
 * What every way out of an account ends with: the analytics identity and the app voucher
 * are forgotten and the page reloads signed out at `target` (by default the home page, in
 * the current language).
 */
export function leaveSignedOut(target = withLanguage('/', languageFromPath(window.location.pathname))): void {
  resetDistinctId();
  storage.remove(STORAGE_KEYS.appVoucher);
  pageNavigation.assign(target);
}

/**
 * Signs out: revokes the session, forgets the analytics identity and the app voucher,
 * and reloads the home page (spec section 4). A failure shows the server's message or the
 * generic one, and the visitor stays signed in.
 */
export async function logout(): Promise<void> {
  try {
    const envelope = await apiGet<boolean>('/login/v1/signOut', undefined, { quiet: true });
    if (!envelope.success) {
      notify.error(envelope.msg || i18n.t('CommonErrorMsg'));
      return;
    }
  } catch {
    notify.error(i18n.t('CommonErrorMsg'));
    return;
  }
  leaveSignedOut();
}

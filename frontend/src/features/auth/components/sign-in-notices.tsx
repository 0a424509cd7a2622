import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { notify } from '@/lib/notifications';
import { ROUTES } from '@/lib/routes';

/** The deleted-account notice waits a second after landing (spec section 4). */
export const ACCOUNT_DELETED_NOTICE_DELAY_MS = 1000;

/**
 * Flags the server's sign-in redirects put on the landing URL (docs/api.md "Sign-in"),
 * plus the one the settings screen adds after deleting an account. Each becomes a
 * notification, and the flag leaves the URL without a new history entry.
 */
export const SIGN_IN_FLAGS = [
  'showNoAccountError',
  'signInLinkExpired',
  'signInFailed',
  'signInUnavailable',
  'accountDeleted',
] as const;

const PROVIDER_NAMES: Record<string, string> = { google: 'Google', discord: 'Discord' };

/** Shows what a sign-in redirect came back with, then cleans the URL. Renders nothing. */
export function SignInNotices() {
  const { t } = useTranslation();
  const { pathname, search, hash } = useLocation();
  const navigate = useNavigate();
  const localize = useLocalizedPath();

  useEffect(() => {
    const params = new URLSearchParams(search);
    if (!SIGN_IN_FLAGS.some((flag) => params.has(flag))) return;

    // The account was deleted less than 7 days ago: after 1 s, the message and back to /.
    if (params.get('showNoAccountError') === '1') {
      const timer = setTimeout(() => {
        notify.error(t('errors.accountDeleted'));
        navigate(localize(ROUTES.home), { replace: true });
      }, ACCOUNT_DELETED_NOTICE_DELAY_MS);
      return () => clearTimeout(timer);
    }

    // A timer (cleared on unmount) keeps a re-run effect from notifying twice.
    const timer = setTimeout(() => {
      if (params.get('signInLinkExpired') === '1') notify.error(t('login.linkExpired'));
      else if (params.get('signInFailed') === '1') notify.error(t('login.signInFailed'));
      else if (params.has('signInUnavailable')) {
        const provider = PROVIDER_NAMES[params.get('signInUnavailable') ?? ''];
        notify.warning(provider ? t('login.providerUnavailableNamed', { provider }) : t('login.providerUnavailable'));
      } else if (params.get('accountDeleted') === '1') notify.success(t('settings.deleteDone'));
      for (const flag of SIGN_IN_FLAGS) params.delete(flag);
      const rest = params.toString();
      navigate(`${pathname}${rest ? `?${rest}` : ''}${hash}`, { replace: true });
    }, 0);
    return () => clearTimeout(timer);
  }, [search, pathname, hash, navigate, localize, t]);

  return null;
}

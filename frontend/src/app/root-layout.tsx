import { useAtomValue, useSetAtom } from 'jotai';
import { lazy, Suspense, useEffect, useLayoutEffect, useState } from 'react';
import { Outlet, useLocation, useNavigationType } from 'react-router';
import { NotificationHost } from '@/components/notification-host';
import { Splash } from '@/components/splash';
import { SignInNotices } from '@/features/auth/components/sign-in-notices';
import { languageAtom, showLoginTipAtom } from '@/lib/app-state';
import { i18n } from '@/lib/i18n';
import { DEFAULT_LANGUAGE, languageFromPath } from '@/lib/languages';

const LoginModal = lazy(() => import('@/features/auth/components/login-modal'));

/** The URL decides the language: a `/{lng}/` prefix, else the default (English). */
function LanguageSync() {
  const { pathname } = useLocation();
  const setLanguage = useSetAtom(languageAtom);
  const language = languageFromPath(pathname) ?? DEFAULT_LANGUAGE;
  useEffect(() => {
    setLanguage(language);
    document.documentElement.lang = language;
    if (i18n.resolvedLanguage !== language) void i18n.changeLanguage(language);
  }, [language, setLanguage]);
  return null;
}

/** New pages start at the top; back and forward keep the browser's (or the page's own) position. */
function ScrollReset() {
  const { pathname } = useLocation();
  const navigationType = useNavigationType();
  useLayoutEffect(() => {
    if (navigationType !== 'POP') window.scrollTo(0, 0);
  }, [pathname, navigationType]);
  return null;
}

/** The login modal's code loads the first time it is asked for. */
function LoginPrompt() {
  const open = useAtomValue(showLoginTipAtom);
  const [wanted, setWanted] = useState(open);
  useEffect(() => {
    if (open) setWanted(true);
  }, [open]);
  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      <LoginModal />
    </Suspense>
  );
}

export function RootLayout() {
  return (
    <>
      <LanguageSync />
      <ScrollReset />
      <Suspense fallback={<Splash />}>
        <Outlet />
      </Suspense>
      <NotificationHost />
      <SignInNotices />
      <LoginPrompt />
    </>
  );
}

import { useAtom, useAtomValue, useSetAtom } from 'jotai';
import { lazy, Suspense, useEffect, useLayoutEffect, useMemo, useReducer, useState } from 'react';
import { Navigate, Outlet, useLocation, useNavigationType } from 'react-router';
import { eighteenTipModalShowedAtom, languageAtom, showLoginTipAtom } from '@/app/store';
import { NeedPayDialog } from '@/components/need-pay-offer';
import { NotificationHost } from '@/components/notification-host';
import { Splash } from '@/components/splash';
import { SignInNotices } from '@/features/auth/components/sign-in-notices';
import { AgeGate } from '@/features/legal/components/age-gate';
import ageGateStyles from '@/features/legal/components/age-gate.module.css';
import { needsAgeGate } from '@/lib/age-gate';
import { i18n } from '@/lib/i18n';
import { preferredLocation } from '@/lib/language-preference';
import { DEFAULT_LANGUAGE, languageFromPath } from '@/lib/languages';

const LoginModal = lazy(() => import('@/features/auth/components/login/login-modal'));

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
  if (open && !wanted) setWanted(true);
  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      <LoginModal />
    </Suspense>
  );
}

/**
 * A first visit sees the age confirmation instead of the page until it is confirmed. Later,
 * a screen can ask for it again (settings, before adult content is turned on) by setting
 * `eighteenTipModalShowed`; it then shows over the page and can be dismissed.
 */
function AgeGated() {
  const { pathname } = useLocation();
  const [confirmations, confirmed] = useReducer((n: number) => n + 1, 0);
  const [showing, setShowing] = useAtom(eighteenTipModalShowedAtom);
  // Decided when the path changes (or on confirming), not on every re-render of the page.
  // eslint-disable-next-line react-hooks/exhaustive-deps -- confirming changes storage, which needsAgeGate reads
  const gated = useMemo(() => needsAgeGate(pathname, navigator.userAgent), [pathname, confirmations]);
  useEffect(() => {
    if (gated) setShowing(true);
  }, [gated, setShowing]);

  if (gated) {
    return (
      <>
        <div className={ageGateStyles.backdrop} data-testid="age-gate-backdrop" />
        <AgeGate
          onConfirm={() => {
            setShowing(false);
            confirmed();
          }}
        />
      </>
    );
  }
  const close = () => setShowing(false);
  return (
    <>
      <Suspense fallback={<Splash />}>
        <Outlet />
      </Suspense>
      {showing && <AgeGate onConfirm={close} onCancel={close} />}
    </>
  );
}

export function RootLayout() {
  const { pathname, search, hash } = useLocation();
  // An unprefixed path opens in the language this visitor picked before.
  const preferred = preferredLocation(pathname);
  if (preferred) return <Navigate replace to={`${preferred}${search}${hash}`} />;
  return (
    <>
      <LanguageSync />
      <ScrollReset />
      <AgeGated />
      <NotificationHost />
      <SignInNotices />
      <LoginPrompt />
      <NeedPayDialog />
    </>
  );
}

import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  gettingUserAtom,
  globalWebConfigAtom,
  isPaidUserAtom,
  languageAtom,
  showLoginTipAtom,
  userInfoAtom,
  vipDataAtom,
} from '@/app/store';
import { Button } from '@/components/button';
import { CoinIcon, FlameIcon, LogoutIcon, SettingsIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import styles from '@/features/shell/components/header-account.module.css';
import { useRequireLogin } from '@/hooks/use-require-login';
import { loadVipData, SHORT_LIST_PACKAGE_IDS } from '@/lib/catalogue';
import { formatMoney } from '@/lib/money';
import { payPathFor, ROUTES } from '@/lib/routes';
import { displayCoins } from '@/lib/site';
import { logout } from '@/lib/user';

function useDismiss(open: boolean, close: () => void) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDown = (event: MouseEvent) => {
      if (ref.current && !ref.current.contains(event.target as Node)) close();
    };
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && close();
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open, close]);
  return ref;
}

/**
 * The spec's short list of coin packages (`coin_1`, `coin_3`, `coin_5`), each a way to its
 * checkout; the catalogue is read when the popover first opens.
 */
function PackageShortList({ onNavigate }: { onNavigate: () => void }) {
  const { t } = useTranslation();
  const language = useAtomValue(languageAtom);
  const catalogue = useAtomValue(vipDataAtom);
  useEffect(() => {
    if (!catalogue) void loadVipData();
  }, [catalogue]);
  const packs = (catalogue?.coinPackages ?? []).filter((pack) => SHORT_LIST_PACKAGE_IDS.includes(pack.productId));
  if (packs.length === 0) return null;
  return (
    <div className={styles.packages} data-testid="balance-packages">
      <div className={styles.packagesTitle}>{t('header.topUp')}</div>
      {packs.map((pack) => (
        <LocalizedLink
          key={pack.productId}
          to={payPathFor(pack.productId)}
          className={styles.packageRow}
          onClick={onNavigate}
          data-product-id={pack.productId}
        >
          <CoinIcon size={16} />
          <span>{t('header.packageTokens', { tokens: displayCoins(pack.coins) })}</span>
          <strong>{formatMoney(pack.price, pack.currency, language)}</strong>
        </LocalizedLink>
      ))}
    </div>
  );
}

/** Paid users: the balance (coins ÷ 10) with a popover of voice and image costs and packages. */
function TokenBalance({ coin }: { coin: number }) {
  const { t } = useTranslation();
  const { defaultEnergy } = useAtomValue(globalWebConfigAtom);
  const [open, setOpen] = useState(false);
  const ref = useDismiss(open, () => setOpen(false));
  return (
    <div className={styles.wrap} ref={ref}>
      <button
        type="button"
        className={styles.balance}
        onClick={() => setOpen(!open)}
        aria-expanded={open}
        aria-label={t('header.tokenBalance')}
        data-testid="token-balance"
      >
        <CoinIcon size={18} />
        {displayCoins(coin)}
      </button>
      {open && (
        <div className={styles.popover} role="dialog" aria-label={t('header.tokenBalance')}>
          <div className={styles.popoverTitle}>
            <span>{t('header.tokens')}</span>
            <span>{displayCoins(coin)}</span>
          </div>
          <div className={styles.popoverRow}>
            {t('header.voiceCost', { cost: displayCoins(defaultEnergy.genVoiceCoin) })}
          </div>
          <div className={styles.popoverRow}>
            {t('header.imageCost', { cost: displayCoins(defaultEnergy.genPictureCoin) })}
          </div>
          <PackageShortList onNavigate={() => setOpen(false)} />
          <LocalizedLink
            to={ROUTES.buyTokens}
            onClick={() => setOpen(false)}
            className={styles.promo}
            style={{ justifyContent: 'center', marginTop: 6 }}
          >
            {t('header.getMoreTokens')}
          </LocalizedLink>
        </div>
      )}
    </div>
  );
}

/** Free and signed-out visitors: the '70% OFF' link to the plans. */
export function PromoLink() {
  const { t } = useTranslation();
  const requireLogin = useRequireLogin();
  return (
    <LocalizedLink
      to={ROUTES.pricing}
      className={styles.promo}
      data-testid="promo-link"
      onClick={(event) => {
        if (!requireLogin()) event.preventDefault();
      }}
    >
      <FlameIcon size={16} />
      {t('header.promo')}
    </LocalizedLink>
  );
}

function ProfileMenu() {
  const { t } = useTranslation();
  const user = useAtomValue(userInfoAtom);
  const [open, setOpen] = useState(false);
  const ref = useDismiss(open, () => setOpen(false));
  if (!user) return null;
  const name = user.userName || user.email || user.userNo;
  return (
    <div className={styles.wrap} ref={ref}>
      <button
        type="button"
        className={styles.avatar}
        onClick={() => setOpen(!open)}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={t('header.accountMenu')}
        data-testid="profile-button"
      >
        {user.userAvatar ? <img src={user.userAvatar} alt="" /> : (name || '?').slice(0, 1).toUpperCase()}
      </button>
      {open && (
        <div className={styles.menu} role="menu">
          <div className={styles.menuHead}>
            <strong>{name}</strong>
            {user.email && user.email !== name ? user.email : `ID ${user.userNo}`}
          </div>
          <LocalizedLink to={ROUTES.setting} role="menuitem" className={styles.menuItem} onClick={() => setOpen(false)}>
            <SettingsIcon size={18} />
            {t('header.settings')}
          </LocalizedLink>
          <button
            type="button"
            role="menuitem"
            className={styles.menuItem}
            onClick={() => {
              setOpen(false);
              void logout();
            }}
          >
            <LogoutIcon size={18} />
            {t('header.logout')}
          </button>
        </div>
      )}
    </div>
  );
}

/** The header's right side: balance or promo, then the profile menu or 'Sign in'. */
export function HeaderAccount({ compact }: { compact: boolean }) {
  const { t } = useTranslation();
  const user = useAtomValue(userInfoAtom);
  const paid = useAtomValue(isPaidUserAtom);
  const getting = useAtomValue(gettingUserAtom);
  const openLogin = useSetAtom(showLoginTipAtom);
  return (
    <>
      {paid && user ? <TokenBalance coin={user.coin} /> : <PromoLink />}
      {getting ? (
        <span className={styles.avatar} aria-hidden="true" style={{ opacity: 0.35 }} />
      ) : user ? (
        <ProfileMenu />
      ) : (
        <Button
          size="small"
          variant={compact ? 'secondary' : 'primary'}
          onClick={() => openLogin(true)}
          data-testid="sign-in"
        >
          {t('header.signIn')}
        </Button>
      )}
    </>
  );
}

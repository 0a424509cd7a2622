import { useAtomValue } from 'jotai';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { globalWebConfigAtom, languageAtom, userInfoAtom } from '@/app/store';
import { Button, buttonClassName } from '@/components/button';
import { CoinIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { Spinner } from '@/components/splash';
import styles from '@/features/payments/components/payments.module.css';
import { LoadFailed, SignInRequired } from '@/features/payments/components/sign-in-required';
import { useAccountGate } from '@/features/payments/hooks/use-account-gate';
import { useVipData } from '@/features/payments/hooks/use-vip-data';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { useIsMobile } from '@/hooks/use-media-query';
import { usePageMeta } from '@/hooks/use-page-meta';
import { SHORT_LIST_PACKAGE_IDS, type CoinPackage } from '@/lib/catalogue';
import { formatMoney } from '@/lib/money';
import { payPathFor, ROUTES } from '@/lib/routes';
import { displayCoins } from '@/lib/site';
import { trackPageView } from '@/lib/telemetry';

function PackageCard({ pack, language }: { pack: CoinPackage; language: string }) {
  const { t } = useTranslation('payments');
  return (
    <article
      className={`${styles.pack} ${pack.bestValue ? styles.packBest : ''}`}
      data-testid="coin-package"
      data-product-id={pack.productId}
    >
      {pack.bestValue && (
        <span className={styles.bestValue} data-testid="best-value">
          {t('buyTokens.bestValue')}
        </span>
      )}
      <span className={styles.packIcon}>
        <CoinIcon size={26} />
      </span>
      <span className={styles.packTokens}>{t('products.coins', { tokens: displayCoins(pack.coins) })}</span>
      <span className={styles.packPrice}>{formatMoney(pack.price, pack.currency, language)}</span>
      <LocalizedLink
        to={payPathFor(pack.productId)}
        className={buttonClassName({ variant: pack.bestValue ? 'primary' : 'secondary', size: 'small', block: true })}
        data-testid="buy-package"
      >
        {t('buyTokens.buy')}
      </LocalizedLink>
    </article>
  );
}

/**
 * `/buytokens` (spec sections 2 and 6): the coin packages, coins shown ÷ 10, with the
 * best-value mark; phones start with the short list (`coin_1`, `coin_3`, `coin_5`).
 * Spec §1 sells coins to everyone ("Message credits, memberships and coins can be
 * bought"); only the side menu's Buy Tokens entry is for paid users (§2, §6). So a free
 * user buys packs here too, with the plans named beside them; signed-out visitors get the
 * login prompt.
 */
export default function BuyTokensPage() {
  const { t } = useTranslation('payments');
  const { t: tApp } = useTranslation();
  const language = useAtomValue(languageAtom);
  const user = useAtomValue(userInfoAtom);
  const { defaultEnergy } = useAtomValue(globalWebConfigAtom);
  const localize = useLocalizedPath();
  const mobile = useIsMobile();
  const [showAll, setShowAll] = useState(false);
  const gate = useAccountGate();
  const { load, reload } = useVipData();

  usePageMeta({
    title: tApp('seo.buyTokens.title'),
    description: tApp('seo.buyTokens.description'),
    keywords: tApp('seo.buyTokens.keywords'),
    noIndex: true,
    breadcrumbs: [
      { name: tApp('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: tApp('nav.buyTokens'), path: localize(ROUTES.buyTokens) },
    ],
  });
  useEffect(() => trackPageView('buyTokens'), []);

  let content;
  if (gate === 'checking') content = <Spinner label={tApp('common.loading')} />;
  else if (gate === 'signedOut') content = <SignInRequired />;
  else if (load.state === 'loading') content = <Spinner label={tApp('common.loading')} />;
  else if (load.state === 'failed') content = <LoadFailed onRetry={reload} />;
  else {
    const all = load.data.coinPackages;
    const short = mobile && !showAll;
    const shown = short ? all.filter((pack) => SHORT_LIST_PACKAGE_IDS.includes(pack.productId)) : all;
    content = (
      <>
        <div className={styles.packs} data-testid="coin-packages">
          {shown.map((pack) => (
            <PackageCard key={pack.productId} pack={pack} language={language} />
          ))}
        </div>
        {mobile && shown.length !== all.length && (
          <Button variant="ghost" size="small" onClick={() => setShowAll(true)} data-testid="show-all-packages">
            {t('buyTokens.showAll')}
          </Button>
        )}
        {mobile && showAll && (
          <Button variant="ghost" size="small" onClick={() => setShowAll(false)}>
            {t('buyTokens.showFewer')}
          </Button>
        )}
      </>
    );
  }

  return (
    <div className={styles.page} data-testid="buy-tokens-page">
      <header className={styles.hero}>
        <h1 className={styles.heading}>{t('buyTokens.heading')}</h1>
        <p className={styles.intro}>{t('buyTokens.intro')}</p>
        {(gate === 'paid' || gate === 'free') && user && (
          <div className={styles.balance} data-testid="buy-tokens-balance">
            <CoinIcon size={20} />
            <span>{t('buyTokens.balance')}</span>
            <strong>{t('buyTokens.balanceValue', { tokens: displayCoins(user.coin) })}</strong>
          </div>
        )}
        <p className={styles.faint}>
          {t('buyTokens.costs', {
            image: displayCoins(defaultEnergy.genPictureCoin),
            voice: displayCoins(defaultEnergy.genVoiceCoin),
          })}
        </p>
      </header>
      {gate === 'free' && (
        <div className={styles.notice} data-testid="buy-tokens-free">
          <span>{t('buyTokens.freeNote')}</span>
          <span className={styles.noticeLinks}>
            <LocalizedLink to={ROUTES.pricing} className={styles.link}>
              {t('buyTokens.seePlans')}
            </LocalizedLink>
          </span>
        </div>
      )}
      {content}
      {(gate === 'paid' || gate === 'free') && (
        <p className={`${styles.faint} ${styles.centerText}`}>
          {gate === 'paid' && (
            <>
              <LocalizedLink to={ROUTES.subscriptionManage} className={styles.link}>
                {t('buyTokens.manage')}
              </LocalizedLink>
              {' · '}
            </>
          )}
          <LocalizedLink to={ROUTES.orders} className={styles.link} data-testid="buy-tokens-orders">
            {t('orders.heading')}
          </LocalizedLink>
        </p>
      )}
    </div>
  );
}

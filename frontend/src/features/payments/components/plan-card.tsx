import { useTranslation } from 'react-i18next';
import { buttonClassName } from '@/components/button';
import { CheckIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import styles from '@/features/payments/components/payments.module.css';
import type { Plan } from '@/lib/catalogue';
import { compareAmounts, formatMoney } from '@/lib/money';
import { payPathFor } from '@/lib/routes';
import { displayCoins } from '@/lib/site';

export interface PlanCardProps {
  plan: Plan;
  language: string;
  /** Drawn as the recommended plan (the largest first-subscription discount). */
  featured: boolean;
  /** Runs before going to the checkout; false stops there (the login prompt opened instead). */
  onChoose: () => boolean;
}

/**
 * One plan: its price (struck-through original when higher), the price per month, its
 * first-subscription discount and what it includes (tokens each period, shown ÷ 10,
 * unlimited messages, premium characters).
 */
export function PlanCard({ plan, language, featured, onChoose }: PlanCardProps) {
  const { t } = useTranslation('payments');
  const money = (amount: string) => formatMoney(amount, plan.currency, language);
  const name = t(`products.${plan.productId}`);
  const every = t(`every.${plan.productId}`);
  const discounted = compareAmounts(plan.originalPrice, plan.price) > 0;
  return (
    <article
      className={`${styles.plan} ${featured ? styles.planFeatured : ''}`}
      data-testid="plan-card"
      data-product-id={plan.productId}
    >
      {featured && <span className={styles.featuredBadge}>{t('pricing.bestDeal')}</span>}
      <header className={styles.planHead}>
        <h3 className={styles.planName}>{name}</h3>
        {plan.firstSubscriptionDiscount > 0 && (
          <span className={styles.offBadge} data-testid="plan-discount">
            {t('pricing.planOff', { percent: plan.firstSubscriptionDiscount })}
          </span>
        )}
      </header>
      <div className={styles.priceRow}>
        <span className={styles.price} data-testid="plan-price">
          {money(plan.price)}
        </span>
        {discounted && (
          <s className={styles.originalPrice} data-testid="plan-original-price">
            {money(plan.originalPrice)}
          </s>
        )}
      </div>
      {plan.perMonth && plan.periodMonths > 1 ? (
        <p className={styles.perMonth} data-testid="plan-per-month">
          {t('pricing.perMonth', { price: money(plan.perMonth) })}
        </p>
      ) : (
        <p className={styles.perMonth}>{t('pricing.billedEvery', { price: money(plan.price), every })}</p>
      )}
      <div className={styles.includesTitle}>{t('pricing.includes')}</div>
      <ul className={styles.includes}>
        <li>
          <CheckIcon size={16} />
          {t('pricing.tokensPerPeriod', { tokens: displayCoins(plan.coinsPerPeriod), every })}
        </li>
        <li>
          <CheckIcon size={16} />
          {t('pricing.unlimitedMessages')}
        </li>
        <li>
          <CheckIcon size={16} />
          {t('pricing.premiumCharacters')}
        </li>
      </ul>
      <LocalizedLink
        to={payPathFor(plan.productId)}
        className={buttonClassName({ variant: featured ? 'primary' : 'secondary', block: true })}
        data-testid="choose-plan"
        onClick={(event) => {
          if (!onChoose()) event.preventDefault();
        }}
      >
        {t('pricing.choose', { plan: name })}
      </LocalizedLink>
    </article>
  );
}

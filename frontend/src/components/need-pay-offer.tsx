import { useAtom, useAtomValue } from 'jotai';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { needPayOfferAtom, userInfoAtom } from '@/app/store';
import { buttonClassName } from '@/components/button';
import { CloseIcon, CoinIcon, CrownIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { Modal } from '@/components/modal';
import styles from '@/components/need-pay-offer.module.css';
import { needPayPathFor } from '@/lib/routes';

/**
 * What `needPay` (40004) offers this user: free and signed-out visitors the plans, paid
 * users more tokens (spec sections 6 and 8).
 */
function useOffer() {
  const { t } = useTranslation();
  const user = useAtomValue(userInfoAtom);
  const paid = (user?.userVipType ?? 0) > 0;
  return {
    paid,
    to: needPayPathFor(user?.userVipType),
    title: paid ? t('needPay.paidTitle') : t('needPay.freeTitle'),
    text: paid ? t('needPay.paidText') : t('needPay.freeText'),
    action: paid ? t('needPay.buyTokens') : t('needPay.upgrade'),
  };
}

/** The offer as a card in the page (the chat shows it where a refused message's error would be). */
export function NeedPayCard({ onDismiss }: { onDismiss?: () => void }) {
  const { t } = useTranslation();
  const offer = useOffer();
  const Icon = offer.paid ? CoinIcon : CrownIcon;
  return (
    <div className={styles.card} role="alert" data-testid="need-pay-offer" data-paid={offer.paid}>
      <span className={styles.icon}>
        <Icon size={20} />
      </span>
      <span className={styles.text}>
        <strong>{offer.title}</strong>
        <span>{offer.text}</span>
      </span>
      <LocalizedLink to={offer.to} className={buttonClassName({ size: 'small' })} data-testid="need-pay-action">
        {offer.action}
      </LocalizedLink>
      {onDismiss && (
        <button type="button" className={styles.dismiss} onClick={onDismiss} aria-label={t('needPay.later')}>
          <CloseIcon size={16} />
        </button>
      )}
    </div>
  );
}

/**
 * The offer as a dialog, for a `needPay` answer to any request (the API client sets
 * needPayOfferAtom); it closes when the user moves to another page.
 */
export function NeedPayDialog() {
  const { t } = useTranslation();
  const [open, setOpen] = useAtom(needPayOfferAtom);
  const { pathname } = useLocation();
  const offer = useOffer();
  useEffect(() => setOpen(false), [pathname, setOpen]);
  const close = () => setOpen(false);
  const Icon = offer.paid ? CoinIcon : CrownIcon;
  return (
    <Modal
      open={open}
      onClose={close}
      title={offer.title}
      closeLabel={t('common.close')}
      width={420}
      testId="need-pay-dialog"
    >
      <div className={styles.dialog}>
        <span className={styles.bigIcon}>
          <Icon size={28} />
        </span>
        <h2 className={styles.title}>{offer.title}</h2>
        <p className={styles.dialogText}>{offer.text}</p>
        <LocalizedLink
          to={offer.to}
          className={buttonClassName({ block: true })}
          onClick={close}
          data-testid="need-pay-action"
        >
          {offer.action}
        </LocalizedLink>
        <button type="button" className={buttonClassName({ variant: 'ghost', block: true })} onClick={close}>
          {t('needPay.later')}
        </button>
      </div>
    </Modal>
  );
}

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
import { needPayPathFor, ROUTES } from '@/lib/routes';

/**
 * Why `needPay` (40004) was answered: a chat message past the day's free messages (or to a
 * members' character), or something that costs tokens (a voice, an image) with too few
 * tokens. Only the chat socket answers the first; every HTTP call that can answer
 * `needPay` (`voice/speak`, `image/generate`, `chat/requestPicture`) means the second.
 */
export type NeedPayReason = 'messages' | 'tokens';

/**
 * What `needPay` offers this user (spec sections 6 and 8): paid users more tokens; free and
 * signed-out visitors the plans when their free messages are used up, and a token pack
 * (or the plans) when they lack tokens: telling them they used today's free messages
 * while they have some left would be wrong (issue 30).
 */
function useOffer(reason: NeedPayReason) {
  const { t } = useTranslation();
  const user = useAtomValue(userInfoAtom);
  const paid = (user?.userVipType ?? 0) > 0;
  if (user && !paid && reason === 'tokens') {
    return {
      paid,
      to: ROUTES.buyTokens,
      title: t('needPay.paidTitle'),
      text: t('needPay.freeTokensText'),
      action: t('needPay.buyTokens'),
      plans: true,
    };
  }
  return {
    paid,
    to: needPayPathFor(user?.userVipType),
    title: paid ? t('needPay.paidTitle') : t('needPay.freeTitle'),
    text: paid ? t('needPay.paidText') : t('needPay.freeText'),
    action: paid ? t('needPay.buyTokens') : t('needPay.upgrade'),
    plans: false,
  };
}

/** The offer as a card in the page (the chat shows it where a refused message's error would be). */
export function NeedPayCard({ onDismiss, reason = 'tokens' }: { onDismiss?: () => void; reason?: NeedPayReason }) {
  const { t } = useTranslation();
  const offer = useOffer(reason);
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
      {offer.plans && (
        <LocalizedLink
          to={ROUTES.pricing}
          className={buttonClassName({ size: 'small', variant: 'ghost' })}
          data-testid="need-pay-plans"
        >
          {t('needPay.upgrade')}
        </LocalizedLink>
      )}
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
  // Only calls that spend tokens answer needPay over HTTP (see NeedPayReason).
  const offer = useOffer('tokens');
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
        {offer.plans && (
          <LocalizedLink
            to={ROUTES.pricing}
            className={buttonClassName({ variant: 'secondary', block: true })}
            onClick={close}
            data-testid="need-pay-plans"
          >
            {t('needPay.upgrade')}
          </LocalizedLink>
        )}
        <button type="button" className={buttonClassName({ variant: 'ghost', block: true })} onClick={close}>
          {t('needPay.later')}
        </button>
      </div>
    </Modal>
  );
}

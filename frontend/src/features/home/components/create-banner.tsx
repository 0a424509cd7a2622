import { useTranslation } from 'react-i18next';
import { buttonClassName } from '@/components/button';
import { SparkleIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import styles from '@/features/home/components/create-banner.module.css';
import { Gender, type GenderValue } from '@/lib/api-types';
import { ROUTES } from '@/lib/routes';

/** Glow, rings and hearts behind the portraits, drawn inline so they cost no request. */
function BannerBackdrop() {
  return (
    <svg className={styles.backdrop} viewBox="0 0 400 360" aria-hidden="true" focusable="false">
      <defs>
        <radialGradient id="banner-glow" cx="50%" cy="50%" r="55%">
          <stop offset="0" stopColor="#ff4f9a" stopOpacity="0.5" />
          <stop offset="1" stopColor="#9b5cff" stopOpacity="0" />
        </radialGradient>
      </defs>
      <circle cx="200" cy="180" r="175" fill="url(#banner-glow)" />
      <circle cx="200" cy="180" r="126" fill="none" stroke="#ffffff" strokeOpacity="0.12" strokeWidth="1.5" />
      <circle
        cx="200"
        cy="180"
        r="156"
        fill="none"
        stroke="#ffffff"
        strokeOpacity="0.07"
        strokeWidth="1.5"
        strokeDasharray="4 8"
      />
      <g fill="#ff4f9a" className={styles.hearts}>
        <path d="M52 92c-6-8-20-6-20 6 0 10 20 22 20 22s20-12 20-22c0-12-14-14-20-6z" opacity="0.9" />
        <path d="M352 54c-4-5-13-4-13 4 0 6 13 14 13 14s13-8 13-14c0-8-9-9-13-4z" opacity="0.75" />
        <path d="M360 262c-5-6-16-5-16 5 0 8 16 18 16 18s16-10 16-18c0-10-11-11-16-5z" opacity="0.6" />
      </g>
      <g fill="#fff">
        <circle cx="70" cy="220" r="2.5" opacity="0.7" />
        <circle cx="330" cy="150" r="2" opacity="0.8" />
        <circle cx="130" cy="40" r="1.8" opacity="0.6" />
        <circle cx="280" cy="320" r="2.2" opacity="0.5" />
      </g>
    </svg>
  );
}

/**
 * The banner at the top of the home page, linking to character creation. Once the grid has
 * loaded, three of its portraits fan out on the right.
 */
export function CreateBanner({ gender, portraits }: { gender: GenderValue; portraits: string[] }) {
  const { t } = useTranslation();
  return (
    <LocalizedLink to={ROUTES.createCharacter} className={styles.banner} data-testid="create-banner">
      <div className={styles.text}>
        <span className={styles.eyebrow}>
          <SparkleIcon size={14} />
          {t('home.bannerEyebrow')}
        </span>
        <p className={styles.title}>
          {gender === Gender.guys ? t('home.bannerTitleGuys') : t('home.bannerTitleGirls')}
        </p>
        <p className={styles.copy}>{t('home.bannerText')}</p>
        <span className={`${buttonClassName()} ${styles.cta}`}>{t('home.bannerCta')}</span>
      </div>
      <div className={styles.art} aria-hidden="true">
        <BannerBackdrop />
        {portraits.slice(0, 3).map((src, index) => (
          <img key={src} src={src} alt="" className={`${styles.portrait} ${styles[`portrait${index}`]}`} />
        ))}
      </div>
    </LocalizedLink>
  );
}

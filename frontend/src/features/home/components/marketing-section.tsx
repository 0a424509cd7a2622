import { useTranslation } from 'react-i18next';
import { ChatIcon, GalleryIcon, HeartIcon, LockIcon, SparkleIcon } from '@/components/icons';
import styles from '@/features/home/components/marketing-section.module.css';
import { Gender, type GenderValue } from '@/lib/api-types';

const FEATURES = [
  { key: 'personality', Icon: SparkleIcon },
  { key: 'chat', Icon: ChatIcon },
  { key: 'memory', Icon: HeartIcon },
  { key: 'images', Icon: GalleryIcon },
  { key: 'privacy', Icon: LockIcon },
] as const;

/** The long marketing text, shown once every character has been loaded (spec section 2). */
export function MarketingSection({ gender }: { gender: GenderValue }) {
  const { t } = useTranslation();
  const variant = gender === Gender.guys ? 'guys' : 'girls';
  return (
    <section className={styles.section} data-testid="marketing">
      <div className={styles.head}>
        <h2 className={styles.title}>{t(`marketing.${variant}.title`)}</h2>
        <p className={styles.intro}>{t(`marketing.${variant}.intro`)}</p>
      </div>
      <div className={styles.grid}>
        {FEATURES.map(({ key, Icon }) => (
          <article key={key} className={styles.feature}>
            <span className={styles.icon}>
              <Icon size={22} />
            </span>
            <h3 className={styles.featureTitle}>{t(`marketing.${variant}.${key}Title`)}</h3>
            <p className={styles.featureText}>{t(`marketing.${variant}.${key}`)}</p>
          </article>
        ))}
      </div>
    </section>
  );
}

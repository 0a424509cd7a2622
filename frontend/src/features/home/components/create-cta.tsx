import { useTranslation } from 'react-i18next';
import { buttonClassName } from '@/components/button';
import { PlusIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import styles from '@/features/home/components/create-cta.module.css';
import { Gender, type GenderValue } from '@/lib/api-types';
import { ROUTES } from '@/lib/routes';

/** The closing call to create a character, under the FAQ. */
export function CreateCta({ gender }: { gender: GenderValue }) {
  const { t } = useTranslation();
  return (
    <section className={styles.cta} data-testid="create-cta">
      <h2 className={styles.title}>{gender === Gender.guys ? t('home.ctaTitleGuys') : t('home.ctaTitleGirls')}</h2>
      <p className={styles.text}>{t('home.ctaText')}</p>
      <LocalizedLink to={ROUTES.createCharacter} className={buttonClassName()}>
        <PlusIcon size={18} />
        {t('home.ctaButton')}
      </LocalizedLink>
    </section>
  );
}

import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ChevronDownIcon } from '@/components/icons';
import styles from '@/features/home/components/faq-section.module.css';
import { Gender, type GenderValue } from '@/lib/api-types';

/** FAQ items: key, title, content (spec section 3); five per variant. */
const FAQ_KEYS = ['nsfw', 'uncensored', 'spicy', 'free', 'design'] as const;

/** Five questions per variant; each toggles on its own and all start collapsed. */
export function FaqSection({ gender }: { gender: GenderValue }) {
  const { t } = useTranslation();
  const baseId = useId();
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set());
  const variant = gender === Gender.guys ? 'guys' : 'girls';
  const toggle = (key: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  return (
    <section className={styles.section} data-testid="faq">
      <h2 className={styles.title}>{t('home.faqTitle')}</h2>
      <div className={styles.list}>
        {FAQ_KEYS.map((key) => {
          const expanded = open.has(key);
          const panelId = `${baseId}-${key}`;
          return (
            <div key={key} className={`${styles.item} ${expanded ? styles.open : ''}`}>
              <h3>
                <button
                  type="button"
                  className={styles.question}
                  aria-expanded={expanded}
                  aria-controls={panelId}
                  onClick={() => toggle(key)}
                >
                  {t(`faq.${variant}.${key}.title`)}
                  <ChevronDownIcon size={20} className={styles.chevron} />
                </button>
              </h3>
              <div id={panelId} role="region" hidden={!expanded} className={styles.answer}>
                {t(`faq.${variant}.${key}.content`)}
              </div>
            </div>
          );
        })}
      </div>
    </section>
  );
}

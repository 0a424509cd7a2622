import { useTranslation } from 'react-i18next';
import { FaqList } from '@/components/faq-list';
import { Gender, type GenderValue } from '@/lib/api-types';

/** FAQ items: key, title, content (spec section 3); five per variant. */
const FAQ_KEYS = ['nsfw', 'uncensored', 'spicy', 'free', 'design'] as const;

/** Five questions per variant; each toggles on its own and all start collapsed. */
export function FaqSection({ gender }: { gender: GenderValue }) {
  const { t } = useTranslation();
  const variant = gender === Gender.guys ? 'guys' : 'girls';
  const items = FAQ_KEYS.map((key) => ({
    key,
    title: t(`faq.${variant}.${key}.title`),
    content: t(`faq.${variant}.${key}.content`),
  }));
  return <FaqList title={t('home.faqTitle')} items={items} testId="faq" />;
}

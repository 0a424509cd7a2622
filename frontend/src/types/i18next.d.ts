import 'i18next';
import type legal from '../../public/locales/en/legal.json';
import type payments from '../../public/locales/en/payments.json';
import type topics from '../../public/locales/en/topics.json';
import type translation from '../../public/locales/en/translation.json';

/** Translation keys are typed from the English files, the source of every string. */
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof translation; legal: typeof legal; topics: typeof topics; payments: typeof payments };
  }
}

import 'i18next';
import type translation from '../../public/locales/en/translation.json';

/** Translation keys are typed from the English file, the source of every string. */
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof translation };
  }
}

import 'i18next';
import type call from '../../public/locales/en/call.json';
import type create from '../../public/locales/en/create.json';
import type persona from '../../public/locales/en/persona.json';
import type images from '../../public/locales/en/images.json';
import type legal from '../../public/locales/en/legal.json';
import type payments from '../../public/locales/en/payments.json';
import type topics from '../../public/locales/en/topics.json';
import type translation from '../../public/locales/en/translation.json';
import type voice from '../../public/locales/en/voice.json';

/** Translation keys are typed from the English files, the source of every string. */
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: {
      translation: typeof translation;
      legal: typeof legal;
      topics: typeof topics;
      payments: typeof payments;
      images: typeof images;
      voice: typeof voice;
      create: typeof create;
      persona: typeof persona;
      call: typeof call;
    };
  }
}

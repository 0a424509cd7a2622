import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { afterEach } from 'vitest';
import create from '../../public/locales/en/create.json';
import call from '../../public/locales/en/call.json';
import images from '../../public/locales/en/images.json';
import legal from '../../public/locales/en/legal.json';
import payments from '../../public/locales/en/payments.json';
import persona from '../../public/locales/en/persona.json';
import topics from '../../public/locales/en/topics.json';
import en from '../../public/locales/en/translation.json';
import voice from '../../public/locales/en/voice.json';

// `waitFor` and `findBy*` give up after 5 s rather than 1 s: they return as soon as what
// they wait for holds, and on a loaded two-core machine a re-render after a fetch took
// longer than 1 s (greeting-choices.test.tsx failed so in a full test run).
configure({ asyncUtilTimeout: 5000 });

// Components under test read the English strings synchronously instead of over HTTP.
await i18n.use(initReactI18next).init({
  lng: 'en',
  fallbackLng: 'en',
  resources: { en: { translation: en, legal, topics, payments, images, voice, create, persona, call } },
  interpolation: { escapeValue: false },
  react: { useSuspense: false },
});

afterEach(() => {
  cleanup();
  window.localStorage.clear();
});

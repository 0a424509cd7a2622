import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { afterEach } from 'vitest';
import create from '../../public/locales/en/create.json';
import images from '../../public/locales/en/images.json';
import legal from '../../public/locales/en/legal.json';
import payments from '../../public/locales/en/payments.json';
import persona from '../../public/locales/en/persona.json';
import topics from '../../public/locales/en/topics.json';
import en from '../../public/locales/en/translation.json';
import voice from '../../public/locales/en/voice.json';

// Components under test read the English strings synchronously instead of over HTTP.
await i18n.use(initReactI18next).init({
  lng: 'en',
  fallbackLng: 'en',
  resources: { en: { translation: en, legal, topics, payments, images, voice, create, persona } },
  interpolation: { escapeValue: false },
  react: { useSuspense: false },
});

afterEach(() => {
  cleanup();
  window.localStorage.clear();
});

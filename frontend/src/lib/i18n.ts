/**
 * i18next set-up: resources come from the server's /locales/{lng}/{ns}.json through the
 * HTTP backend, with the loading limits of spec section 7 (10 parallel reads, 5 retries,
 * first retry after 350 ms, doubling each time).
 */
import i18n from 'i18next';
import HttpBackend, { type HttpBackendOptions } from 'i18next-http-backend';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@/lib/languages';
import { APP_VERSION } from '@/lib/site';

export const I18N_LOAD_PATH = '/locales/{{lng}}/{{ns}}.json';
export const I18N_MAX_PARALLEL_READS = 10;
export const I18N_MAX_RETRIES = 5;
export const I18N_RETRY_TIMEOUT_MS = 350;

export function initI18n(language: Language): Promise<unknown> {
  return i18n
    .use(HttpBackend)
    .use(initReactI18next)
    .init<HttpBackendOptions>({
      lng: language,
      fallbackLng: DEFAULT_LANGUAGE,
      supportedLngs: [...LANGUAGES],
      load: 'languageOnly',
      ns: ['translation'],
      defaultNS: 'translation',
      backend: {
        loadPath: I18N_LOAD_PATH,
        // Bust caches when a new release ships new strings.
        queryStringParams: { v: APP_VERSION },
      },
      maxParallelReads: I18N_MAX_PARALLEL_READS,
      maxRetries: I18N_MAX_RETRIES,
      retryTimeout: I18N_RETRY_TIMEOUT_MS,
      interpolation: { escapeValue: false },
      react: { useSuspense: true },
    });
}

export { i18n };

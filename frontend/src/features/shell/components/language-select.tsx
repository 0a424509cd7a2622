import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { languageAtom } from '@/app/store';
import { ChevronDownIcon, GlobeIcon } from '@/components/icons';
import styles from '@/features/shell/components/language-select.module.css';
import { i18n } from '@/lib/i18n';
import { rememberLanguage } from '@/lib/language-preference';
import { isLanguage, LANGUAGE_NAMES, LANGUAGES, pathInLanguage } from '@/lib/languages';

/** Switches language by moving to the same page under `/{lng}/` (spec section 2), English unprefixed. */
export function LanguageSelect() {
  const { t } = useTranslation();
  const language = useAtomValue(languageAtom);
  const { pathname, search, hash } = useLocation();
  const navigate = useNavigate();
  return (
    <label className={styles.wrap}>
      <GlobeIcon size={16} />
      <span className="visually-hidden">{t('footer.language')}</span>
      <select
        className={styles.select}
        value={language}
        data-testid="language-select"
        onChange={(event) => {
          const next = event.target.value;
          if (!isLanguage(next)) return;
          rememberLanguage(next);
          // Load the strings first, so the page does not blank out while they arrive.
          // English lives at the unprefixed address; the switch replaces the entry, so Back
          // leaves the page rather than stepping through its other languages.
          void i18n
            .loadLanguages(next)
            .then(() => navigate(`${pathInLanguage(pathname, next)}${search}${hash}`, { replace: true }));
        }}
      >
        {LANGUAGES.map((lng) => (
          <option key={lng} value={lng}>
            {LANGUAGE_NAMES[lng]}
          </option>
        ))}
      </select>
      <ChevronDownIcon size={14} className={styles.chevron} />
    </label>
  );
}

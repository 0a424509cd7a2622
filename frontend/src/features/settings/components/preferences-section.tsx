import { useAtom, useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { eighteenTipModalShowedAtom, homePageCacheDataAtom, interestedGenderAtom, languageAtom } from '@/app/store';
import { GenderSwitch } from '@/components/gender-switch';
import { updateWebData, type UserDetail } from '@/features/settings/api/account';
import styles from '@/features/settings/components/settings-page.module.css';
import { useLatest } from '@/hooks/use-latest';
import type { GenderValue } from '@/lib/api-types';
import { ageConfirmed } from '@/lib/age-gate';
import { nsfwEnabled } from '@/lib/nsfw-preference';
import { i18n } from '@/lib/i18n';
import { rememberLanguage } from '@/lib/language-preference';
import { isLanguage, LANGUAGE_NAMES, LANGUAGES, pathInLanguage } from '@/lib/languages';
import { notify } from '@/lib/notifications';
import { STORAGE_KEYS, storage } from '@/lib/storage';

/** The NSFW flag this browser sends (spec section 4) wins over the account's stored one. */
function currentNsfw(detail: UserDetail): boolean {
  return storage.get(STORAGE_KEYS.localNsfw) !== null ? nsfwEnabled() : Boolean(detail.nsfw);
}

/** Language, adult content and interested gender, kept with the account and in this browser. */
export function PreferencesSection({
  detail,
  onChange,
}: {
  detail: UserDetail;
  onChange: (change: Partial<UserDetail>) => void;
}) {
  const { t } = useTranslation();
  const language = useAtomValue(languageAtom);
  const [gender, setGender] = useAtom(interestedGenderAtom);
  const [nsfw, setNsfw] = useState(() => currentNsfw(detail));
  // Asking for the age: the root layout shows the confirmation while this atom is true.
  const [ageGateShown, setAgeGateShown] = useAtom(eighteenTipModalShowedAtom);
  const waitingForAge = useRef(false);
  const setHomeCache = useSetAtom(homePageCacheDataAtom);
  const [busy, setBusy] = useState(false);
  const { pathname } = useLocation();
  const navigate = useNavigate();

  const save = async (change: Parameters<typeof updateWebData>[0]): Promise<boolean> => {
    setBusy(true);
    try {
      const envelope = await updateWebData(change);
      if (envelope.success) notify.success(t('settings.saved'));
      return envelope.success;
    } catch {
      return false;
    } finally {
      setBusy(false);
    }
  };

  const changeLanguage = async (next: string) => {
    if (!isLanguage(next) || next === language) return;
    if (!(await save({ language: next }))) return;
    onChange({ language: next });
    rememberLanguage(next);
    // The URL decides the language: load the strings, then move to this page under /{lng}/.
    await i18n.loadLanguages(next);
    // English at the unprefixed address, replacing the entry (as the footer's switch does).
    navigate(pathInLanguage(pathname, next), { replace: true });
  };

  const applyNsfw = async (next: boolean) => {
    setNsfw(next);
    storage.set(STORAGE_KEYS.localNsfw, String(next));
    // The catalogue answers by this flag: a kept home list would show the old selection.
    setHomeCache(null);
    if (await save({ nsfw: next })) onChange({ nsfw: next });
  };

  // Adult content needs the 18+ confirmation first, if this browser never gave it.
  const changeNsfw = (next: boolean) => {
    if (next && !ageConfirmed()) {
      waitingForAge.current = true;
      setAgeGateShown(true);
    } else {
      void applyNsfw(next);
    }
  };

  // The confirmation closed: switch on if it was given, stay off if it was dismissed.
  const applyNsfwRef = useLatest(applyNsfw);
  useEffect(() => {
    if (ageGateShown || !waitingForAge.current) return;
    waitingForAge.current = false;
    if (ageConfirmed()) void applyNsfwRef.current(true);
  }, [ageGateShown, applyNsfwRef]);

  const changeGender = async (next: GenderValue) => {
    setGender(next);
    // Answering here also answers the first-visit question.
    storage.set(STORAGE_KEYS.userLikeGender, String(next));
    if (await save({ interestedGender: next })) onChange({ interestedGender: next });
  };

  return (
    <section className={styles.card} aria-labelledby="settings-preferences" data-testid="settings-preferences">
      <h2 id="settings-preferences" className={styles.cardTitle}>
        {t('settings.preferencesTitle')}
      </h2>

      <div className={styles.row}>
        <div className={styles.rowText}>
          <label className={styles.rowLabel} htmlFor="settings-language">
            {t('settings.languageLabel')}
          </label>
          <span className={styles.faint}>{t('settings.languageText')}</span>
        </div>
        <select
          id="settings-language"
          className={styles.select}
          value={language}
          onChange={(event) => void changeLanguage(event.target.value)}
          disabled={busy}
          data-testid="settings-language"
        >
          {LANGUAGES.map((lng) => (
            <option key={lng} value={lng}>
              {LANGUAGE_NAMES[lng]}
            </option>
          ))}
        </select>
      </div>

      <div className={styles.row}>
        <div className={styles.rowText}>
          <span className={styles.rowLabel} id="settings-nsfw-label">
            {t('settings.nsfwLabel')}
          </span>
          <span className={styles.faint}>{t('settings.nsfwText')}</span>
        </div>
        <button
          type="button"
          role="switch"
          aria-checked={nsfw}
          aria-labelledby="settings-nsfw-label"
          className={`${styles.toggle} ${nsfw ? styles.toggleOn : ''}`}
          onClick={() => changeNsfw(!nsfw)}
          disabled={busy}
          data-testid="settings-nsfw"
        >
          <span className={styles.toggleKnob} />
        </button>
      </div>

      <div className={`${styles.row} ${styles.rowWrap}`}>
        <div className={styles.rowText}>
          <span className={styles.rowLabel}>{t('settings.genderLabel')}</span>
          <span className={styles.faint}>{t('settings.genderText')}</span>
        </div>
        <GenderSwitch
          value={gender}
          onChange={(next) => void changeGender(next)}
          spacing={120}
          labels={{ group: t('settings.genderLabel'), girls: t('gender.girls'), guys: t('gender.guys') }}
          testId="settings-gender"
        />
      </div>
    </section>
  );
}

import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { imageJobsAtom, interestedGenderAtom, isLoggedInAtom, showLoginTipAtom, userInfoAtom } from '@/app/store';
import { Button, buttonClassName } from '@/components/button';
import { CoinIcon, InfoIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { NeedPayCard } from '@/components/need-pay-offer';
import { Spinner } from '@/components/splash';
import { getCharacterList } from '@/lib/character-list';
import {
  cancelJob,
  generateImages,
  getImageOptions,
  PRESET_GROUPS,
  PROMPT_MAX_CHARS,
  type ImageOptions,
  type PresetGroup,
} from '@/lib/images-api';
import { Lightbox } from '@/components/lightbox';
import styles from '@/features/images/components/images.module.css';
import { JobCard } from '@/features/images/components/job-tiles';
import { buildRequest, type Selection } from '@/features/images/lib/generate-request';
import { useLoad } from '@/hooks/use-load';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { ApiCode, type CharacterCard, type GalleryImage } from '@/lib/api-types';
import { imageErrorKey } from '@/lib/image-errors';
import { dispatchJobs, followImageJobs } from '@/lib/image-jobs-store';
import { ROUTES } from '@/lib/routes';
import { displayCoins } from '@/lib/site';
import { trackPageView } from '@/lib/telemetry';

const NO_SELECTION: Selection = { scenes: null, outfits: null, poses: null, styles: null };

function CharacterPicker({
  characters,
  value,
  onChange,
}: {
  characters: CharacterCard[];
  value: string | null;
  onChange: (id: string | null) => void;
}) {
  const { t } = useTranslation('images');
  return (
    <fieldset className={styles.group}>
      <legend className={styles.groupLabel}>{t('generate.character')}</legend>
      <div className={styles.characters} role="radiogroup" aria-label={t('generate.character')}>
        <button
          type="button"
          role="radio"
          aria-checked={value === null}
          className={styles.characterOption}
          onClick={() => onChange(null)}
          data-testid="character-option"
          data-character-id=""
        >
          <span className={styles.characterPhoto}>✦</span>
          <span>{t('generate.noCharacter')}</span>
        </button>
        {characters.map((character) => (
          <button
            key={character.characterId}
            type="button"
            role="radio"
            aria-checked={value === character.characterId}
            className={styles.characterOption}
            onClick={() => onChange(character.characterId)}
            data-testid="character-option"
            data-character-id={character.characterId}
          >
            <span className={styles.characterPhoto}>
              <img src={character.characterPhoto} alt="" loading="lazy" />
            </span>
            <span>{character.characterName}</span>
          </button>
        ))}
      </div>
    </fieldset>
  );
}

function PresetGroupPicker({
  group,
  options,
  value,
  onChange,
}: {
  group: PresetGroup;
  options: ImageOptions;
  value: string | null;
  onChange: (key: string | null) => void;
}) {
  const { t } = useTranslation('images');
  const presets = options[group];
  if (presets.length === 0) return null;
  return (
    <fieldset className={styles.group}>
      <legend className={styles.groupLabel}>{t(`generate.groups.${group}`)}</legend>
      <div className={styles.chips}>
        {presets.map((preset) => (
          <button
            key={preset.key}
            type="button"
            className={styles.chip}
            aria-pressed={value === preset.key}
            onClick={() => onChange(value === preset.key ? null : preset.key)}
            data-testid="preset-chip"
            data-group={group}
            data-key={preset.key}
          >
            {t(`presets.${group}.${preset.key}` as 'presets.scenes.beach', { defaultValue: preset.key })}
            {preset.nsfw && <span className={styles.nsfwMark}>18+</span>}
          </button>
        ))}
      </div>
    </fieldset>
  );
}

/**
 * `/generateimage` (spec section 2, docs/api.md "Images"): a character (or none), presets
 * and/or a prompt, how many images, their cost and the balance. Signed-out visitors may look
 * and get the login prompt on Generate; too few tokens bring the buy/upgrade offer. Each job
 * shows one tile per image, filled as the images arrive over the WebSocket.
 */
export default function GenerateImagePage() {
  const { t } = useTranslation('images');
  const { t: tApp } = useTranslation();
  const localize = useLocalizedPath();
  const [params] = useSearchParams();
  const user = useAtomValue(userInfoAtom);
  const loggedIn = useAtomValue(isLoggedInAtom);
  const gender = useAtomValue(interestedGenderAtom);
  const openLogin = useSetAtom(showLoginTipAtom);
  const { jobs } = useAtomValue(imageJobsAtom);

  const [characterId, setCharacterId] = useState<string | null>(() => params.get('character'));
  const [selection, setSelection] = useState<Selection>(NO_SELECTION);
  const [prompt, setPrompt] = useState('');
  const [count, setCount] = useState(1);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [needPay, setNeedPay] = useState(false);
  const [viewing, setViewing] = useState<GalleryImage | null>(null);
  const results = useRef<HTMLDivElement>(null);

  usePageMeta({
    title: tApp('seo.generateImage.title'),
    description: tApp('seo.generateImage.description'),
    keywords: tApp('seo.generateImage.keywords'),
    breadcrumbs: [
      { name: tApp('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: tApp('nav.generateImage'), path: localize(ROUTES.generateImage) },
    ],
  });
  useEffect(() => trackPageView('generateImage'), []);
  useEffect(() => followImageJobs(), []);

  // The NSFW presets depend on the viewer: read them again when the account changes, the
  // ones shown staying until then.
  const optionsLoad = useLoad(
    () =>
      getImageOptions().then((envelope) => {
        if (!envelope.success || !envelope.data) throw new Error('getImageOptions failed');
        return envelope.data;
      }),
    [],
    { keepData: true, refreshKey: user?.userId },
  );
  const options = optionsLoad.data ?? null;
  const optionsFailed = optionsLoad.error !== null;
  const loadOptions = optionsLoad.reload;

  // The characters to draw, the last list staying shown until the next arrives.
  const characters =
    useLoad(
      () =>
        getCharacterList({ pageNo: 1, pageSize: 30, gender }).then((envelope) => {
          if (!envelope.success || !Array.isArray(envelope.data)) throw new Error('getCharacterList failed');
          return envelope.data;
        }),
      [gender],
      { keepData: true, refreshKey: user?.userId },
    ).data ?? [];

  // A preset the options no longer hold (adult content turned off) is unselected, in the
  // render that shows the new options.
  const [selectionFor, setSelectionFor] = useState(options);
  if (selectionFor !== options) {
    setSelectionFor(options);
    if (options)
      setSelection((current) => {
        const next = { ...current };
        for (const group of PRESET_GROUPS)
          if (next[group] && !options[group].some((p) => p.key === next[group])) next[group] = null;
        return next;
      });
  }

  const counts = options?.counts.length ? options.counts : [1, 2, 4];
  const costPerImage = options?.costPerImage ?? 0;
  const cost = costPerImage * count;
  const request = useMemo(
    () => buildRequest(characterId, selection, prompt, count),
    [characterId, selection, prompt, count],
  );
  const generateJobs = jobs.filter((job) => job.origin === 'generate');

  const generate = async () => {
    if (!loggedIn) {
      openLogin(true);
      return;
    }
    if (!request || busy) return;
    setBusy(true);
    setError(null);
    setNeedPay(false);
    try {
      const envelope = await generateImages(request);
      if (envelope.success && envelope.data) {
        dispatchJobs({
          type: 'jobStarted',
          jobId: envelope.data.jobId,
          imageIds: envelope.data.imageIds,
          origin: 'generate',
        });
        // On a phone the results are below the form: bring the new tiles into view.
        const box = results.current?.getBoundingClientRect();
        if (box && box.top > window.innerHeight * 0.6)
          results.current?.scrollIntoView?.({ behavior: 'smooth', block: 'start' });
      } else if (envelope.code === ApiCode.needPay) {
        setNeedPay(true);
      } else {
        setError(t(imageErrorKey(envelope.code)));
      }
    } catch {
      // The connection notification has been shown.
    } finally {
      setBusy(false);
    }
  };

  const cancel = async (jobId: string) => {
    dispatchJobs({ type: 'cancelRequested', jobId });
    try {
      const envelope = await cancelJob(jobId);
      if (!envelope.success) dispatchJobs({ type: 'cancelSettled', jobId });
    } catch {
      dispatchJobs({ type: 'cancelSettled', jobId });
    }
  };

  let form;
  if (optionsFailed) {
    form = (
      <div className={styles.panel}>
        <p className={styles.error}>{t('generate.optionsFailed')}</p>
        <Button variant="secondary" size="small" onClick={loadOptions}>
          {t('retry')}
        </Button>
      </div>
    );
  } else if (!options) {
    form = (
      <div className={styles.panel}>
        <Spinner label={tApp('common.loading')} />
      </div>
    );
  } else {
    form = (
      <form
        className={styles.panel}
        onSubmit={(event) => {
          event.preventDefault();
          void generate();
        }}
        data-testid="generate-form"
      >
        <CharacterPicker characters={characters} value={characterId} onChange={setCharacterId} />
        {PRESET_GROUPS.map((group) => (
          <PresetGroupPicker
            key={group}
            group={group}
            options={options}
            value={selection[group]}
            onChange={(key) => setSelection({ ...selection, [group]: key })}
          />
        ))}
        <label className={styles.group}>
          <span className={styles.groupLabel}>{t('generate.prompt')}</span>
          <textarea
            className={styles.promptBox}
            value={prompt}
            maxLength={PROMPT_MAX_CHARS}
            placeholder={t('generate.promptPlaceholder')}
            onChange={(event) => setPrompt(event.target.value)}
            data-testid="prompt-input"
          />
          <span
            className={`${styles.counter} ${prompt.length >= PROMPT_MAX_CHARS ? styles.counterFull : ''}`}
            data-testid="prompt-count"
          >
            {t('generate.promptCount', { length: prompt.length, max: PROMPT_MAX_CHARS })}
          </span>
        </label>
        <fieldset className={styles.group}>
          <legend className={styles.groupLabel}>{t('generate.count')}</legend>
          <div className={styles.chips} role="radiogroup" aria-label={t('generate.count')}>
            {counts.map((n) => (
              <button
                key={n}
                type="button"
                role="radio"
                aria-checked={count === n}
                className={styles.chip}
                onClick={() => setCount(n)}
                data-testid="count-option"
                data-count={n}
              >
                {t('generate.countOption', { n })}
              </button>
            ))}
          </div>
        </fieldset>
        <div className={styles.costRow}>
          <span data-testid="generate-cost">
            <CoinIcon size={14} /> {t('generate.cost')} <strong>{t('tokens', { tokens: displayCoins(cost) })}</strong>
          </span>
          {user && (
            <span data-testid="generate-balance">
              {t('generate.balance')} <strong>{t('tokens', { tokens: displayCoins(user.coin) })}</strong>
            </span>
          )}
        </div>
        {options.illustration && (
          <p className={styles.note} data-testid="illustration-note">
            <InfoIcon size={16} />
            <span>{t('generate.illustrationNote')}</span>
          </p>
        )}
        {error && (
          <p className={styles.error} role="alert" data-testid="generate-error">
            {error}
          </p>
        )}
        {needPay && <NeedPayCard onDismiss={() => setNeedPay(false)} />}
        {!request && <p className={styles.counter}>{t('generate.needInput')}</p>}
        <Button type="submit" block disabled={busy || (loggedIn && !request)} data-testid="generate-button">
          {!loggedIn
            ? t('generate.signInToGenerate')
            : busy
              ? t('generate.starting')
              : t('generate.button', { n: count })}
        </Button>
      </form>
    );
  }

  return (
    <div className={styles.page} data-testid="generate-page">
      <header>
        <h1 className={styles.heading}>{t('generate.heading')}</h1>
        <p className={styles.intro}>{t('generate.intro')}</p>
      </header>
      <div className={styles.layout}>
        {form}
        <div className={styles.results} ref={results} data-testid="generate-results">
          {generateJobs.length === 0 ? (
            <div className={styles.empty}>
              <p>{t('generate.resultsEmpty')}</p>
              <LocalizedLink to={`${ROUTES.gallery}?tab=feed`} className={styles.link} data-testid="browse-feed">
                {t('generate.browseFeed')}
              </LocalizedLink>
            </div>
          ) : (
            <>
              {generateJobs.map((job) => (
                <JobCard
                  key={job.jobId}
                  job={job}
                  onOpen={setViewing}
                  onCancel={() => void cancel(job.jobId)}
                  onDismiss={() => dispatchJobs({ type: 'jobDismissed', jobId: job.jobId })}
                />
              ))}
              <LocalizedLink
                to={ROUTES.gallery}
                className={buttonClassName({ variant: 'secondary', size: 'small' })}
                data-testid="open-gallery"
              >
                {t('generate.openGallery')}
              </LocalizedLink>
            </>
          )}
        </div>
      </div>
      <Lightbox
        image={viewing}
        caption={viewing?.prompt ?? ''}
        illustration={viewing?.illustration}
        onClose={() => setViewing(null)}
        actions={
          viewing && (
            <a
              className={buttonClassName({ variant: 'secondary', size: 'small' })}
              href={viewing.url}
              download={`amora-${viewing.imageId}`}
            >
              {t('gallery.download')}
            </a>
          )
        }
      />
    </div>
  );
}

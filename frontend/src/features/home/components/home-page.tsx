import { useSetAtom } from 'jotai';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { chatBeforePagePathAtom, homePageCacheDataAtom, interestedGenderAtom } from '@/app/store';
import { Button } from '@/components/button';
import { GenderSwitch } from '@/components/gender-switch';
import { Spinner } from '@/components/splash';
import { CharacterCard, CharacterCardSkeleton } from '@/features/home/components/character-card';
import { CreateBanner } from '@/features/home/components/create-banner';
import { CreateCta } from '@/features/home/components/create-cta';
import { FaqSection } from '@/features/home/components/faq-section';
import styles from '@/features/home/components/home-page.module.css';
import { InterestedModal } from '@/features/home/components/interested-modal';
import { MarketingSection } from '@/features/home/components/marketing-section';
import { PromoBanner } from '@/features/home/components/promo-banner';
import { cardElement, useCharacterFeed } from '@/features/home/hooks/use-character-feed';
import { useLatest } from '@/hooks/use-latest';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { useIsMobile } from '@/hooks/use-media-query';
import { usePageMeta } from '@/hooks/use-page-meta';
import { Gender, type CharacterCard as CharacterCardData, type GenderValue } from '@/lib/api-types';
import { chatPathFor, homePathFor, ROUTES } from '@/lib/routes';
import { revealApp } from '@/lib/server-data';
import { STORAGE_KEYS, storage } from '@/lib/storage';
import { trackClick, trackPageView } from '@/lib/telemetry';

const SKELETON_COUNT = 10;

/** The explore page: `/` forces girls (0), `/ai-boyfriend` forces guys (1). */
export default function HomePage({ gender }: { gender: GenderValue }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const localize = useLocalizedPath();
  const mobile = useIsMobile();
  const setInterestedGender = useSetAtom(interestedGenderAtom);
  const setChatBeforePath = useSetAtom(chatBeforePagePathAtom);
  const setHomeCache = useSetAtom(homePageCacheDataAtom);
  const endRef = useRef<HTMLDivElement>(null);
  const feed = useCharacterFeed(gender, endRef);
  const [askInterest, setAskInterest] = useState(() => storage.get(STORAGE_KEYS.userLikeGender) === null);
  const guys = gender === Gender.guys;

  usePageMeta({
    title: guys ? t('seo.homeGuys.title') : t('seo.homeGirls.title'),
    description: guys ? t('seo.homeGuys.description') : t('seo.homeGirls.description'),
    keywords: guys ? t('seo.homeGuys.keywords') : t('seo.homeGirls.keywords'),
    breadcrumbs: guys
      ? [
          { name: t('seo.breadcrumbHome'), path: localize(ROUTES.home) },
          { name: t('landing.aiBoyfriend'), path: localize(ROUTES.boyfriendHome) },
        ]
      : [{ name: t('seo.breadcrumbHome'), path: localize(ROUTES.home) }],
  });

  useEffect(() => {
    setInterestedGender(gender);
    trackPageView(guys ? 'aiBoyfriend' : 'home');
  }, [gender, guys, setInterestedGender]);

  const chooseInterest = (choice: GenderValue) => {
    storage.set(STORAGE_KEYS.userLikeGender, String(choice));
    setInterestedGender(choice);
    setAskInterest(false);
    trackClick('interestedGender', { gender: choice });
    if (choice !== gender) navigate(localize(homePathFor(choice)));
  };

  // Read through a ref so the cards' click handler stays stable while pages append.
  const feedRef = useLatest(feed);
  const openCharacter = useCallback(
    (character: CharacterCardData) => {
      const { list, pageNo, hasMore } = feedRef.current;
      const card = cardElement(character.characterId);
      const anchor = card ? { characterId: character.characterId, top: card.getBoundingClientRect().top } : undefined;
      setHomeCache({ gender, pageNo, list, hasMore, scrollY: window.scrollY, anchor });
      setChatBeforePath(window.location.pathname);
      trackClick('homeCharacter', { characterId: character.characterId });
      navigate(localize(chatPathFor(character.characterId)));
    },
    [feedRef, setHomeCache, gender, setChatBeforePath, navigate, localize],
  );

  const firstLoad = feed.loading && feed.list.length === 0;
  const bannerPortraits = useMemo(
    () =>
      feed.list
        .filter((c) => c.usedType !== 1)
        .slice(0, 3)
        .map((c) => c.characterPhoto),
    [feed.list],
  );
  const finished = !feed.hasMore && !feed.loading;
  // Shown with its characters (or its answer that there are none): the server's page can go.
  const settled = feed.list.length > 0 || feed.failed || finished;
  useLayoutEffect(() => {
    if (settled) revealApp();
  }, [settled]);

  return (
    <div className={styles.page} data-testid={`home-${guys ? 'guys' : 'girls'}`}>
      <div className={styles.stack}>
        <CreateBanner gender={gender} portraits={bannerPortraits} />
        <PromoBanner />
      </div>
      {mobile && (
        <div className={styles.tabs}>
          <GenderSwitch
            value={gender}
            onChange={(next) => navigate(localize(homePathFor(next)))}
            spacing={160}
            labels={{ group: t('gender.label'), girls: t('gender.girls'), guys: t('gender.guys') }}
            testId="page-gender-switch"
          />
        </div>
      )}
      <div className={styles.headingRow}>
        <h2 className={styles.heading}>{guys ? t('home.headingGuys') : t('home.headingGirls')}</h2>
      </div>

      {firstLoad ? (
        <div className={styles.grid} aria-busy="true">
          {Array.from({ length: SKELETON_COUNT }, (_, i) => (
            <CharacterCardSkeleton key={i} />
          ))}
        </div>
      ) : feed.list.length > 0 ? (
        <div className={styles.grid} data-testid="character-grid">
          {feed.list.map((character, index) => (
            <CharacterCard
              key={character.characterId}
              character={character}
              href={localize(chatPathFor(character.characterId))}
              onOpen={openCharacter}
              eager={index < 10}
            />
          ))}
        </div>
      ) : feed.failed ? (
        <div className={styles.empty}>
          <p>{t('home.loadFailed')}</p>
          <Button variant="secondary" size="small" onClick={feed.retry}>
            {t('home.retry')}
          </Button>
        </div>
      ) : finished ? (
        <div className={styles.empty} data-testid="no-result">
          {t('home.noResult')}
        </div>
      ) : null}
      <div ref={endRef} className={styles.end} aria-hidden="true" />
      {feed.loading && feed.list.length > 0 && <Spinner label={t('common.loading')} />}
      {feed.failed && feed.list.length > 0 && (
        <div className={styles.empty}>
          <Button variant="secondary" size="small" onClick={feed.retry}>
            {t('home.retry')}
          </Button>
        </div>
      )}

      {finished && (
        <>
          <MarketingSection gender={gender} />
          <FaqSection gender={gender} />
          <CreateCta gender={gender} />
        </>
      )}
      <InterestedModal open={askInterest} onChoose={chooseInterest} />
    </div>
  );
}

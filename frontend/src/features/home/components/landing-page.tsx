import { useSetAtom } from 'jotai';
import { Suspense, useCallback, useEffect, useLayoutEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { chatBeforePagePathAtom } from '@/app/store';
import { Button, buttonClassName } from '@/components/button';
import { FaqList } from '@/components/faq-list';
import { ChatIcon, CheckIcon, ExploreIcon, PlusIcon, ShieldIcon } from '@/components/icons';
import { LocalizedLink } from '@/components/localized-link';
import { Spinner } from '@/components/splash';
import { CharacterCard, CharacterCardSkeleton } from '@/features/home/components/character-card';
import { CreateCta } from '@/features/home/components/create-cta';
import styles from '@/features/home/components/landing-page.module.css';
import { usePublishedLandingCopy } from '@/features/home/hooks/use-landing-copy';
import { useTopicCharacters } from '@/features/home/hooks/use-topic-characters';
import { TOPIC_GRID_SIZE, TOPICS, TOPICS_NAMESPACE, type TopicCopy, type TopicKey } from '@/features/home/lib/topics';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import type { CharacterCard as CharacterCardData } from '@/lib/api-types';
import { chatPathFor, homePathFor, LANDING_ROUTES, ROUTES } from '@/lib/routes';
import { revealApp } from '@/lib/server-data';
import { trackClick, trackPageView } from '@/lib/telemetry';

function Faq({ items }: { items: TopicCopy['faq'] }) {
  const { t } = useTranslation();
  return (
    <FaqList
      title={t('home.faqTitle')}
      items={items.map((item) => ({ key: item.q, title: item.q, content: item.a }))}
      testId="landing-faq"
    />
  );
}

/**
 * The page's body: the topic's copy (the version an operator published, else the `topics`
 * namespace's), matching characters, FAQ, calls to chat or create.
 */
function LandingBody({ topic }: { topic: TopicKey }) {
  const { t, i18n } = useTranslation();
  const { t: topicT } = useTranslation(TOPICS_NAMESPACE);
  const read = topicT as unknown as (key: string, options?: object) => unknown;
  const published = usePublishedLandingCopy(topic, i18n.resolvedLanguage ?? 'en');
  const copy = published ?? (read(topic, { returnObjects: true }) as TopicCopy);
  const navigate = useNavigate();
  const localize = useLocalizedPath();
  const setChatBeforePath = useSetAtom(chatBeforePagePathAtom);
  const config = TOPICS[topic];
  const { state, retry } = useTopicCharacters(topic, config);

  const openCharacter = useCallback(
    (character: CharacterCardData) => {
      setChatBeforePath(window.location.pathname);
      trackClick('landingCharacter', { topic, characterId: character.characterId });
      navigate(localize(chatPathFor(character.characterId)));
    },
    [topic, setChatBeforePath, navigate, localize],
  );
  const first = state.status === 'ready' ? state.characters[0] : undefined;
  const settled = state.status !== 'loading';
  useLayoutEffect(() => {
    if (settled) revealApp();
  }, [settled]);

  return (
    <>
      <section className={styles.hero} data-testid="landing-hero">
        <span className={styles.eyebrow}>
          <ShieldIcon size={14} />
          {t('landingPage.adultsOnly')}
        </span>
        <h2 className={styles.heading}>{copy.heading}</h2>
        <p className={styles.intro}>{copy.intro}</p>
        <ul className={styles.points}>
          {copy.points.map((point) => (
            <li key={point}>
              <CheckIcon size={16} />
              {point}
            </li>
          ))}
        </ul>
        <div className={styles.actions}>
          <Button onClick={() => first && openCharacter(first)} disabled={!first} data-testid="landing-chat">
            <ChatIcon size={18} />
            {t('landingPage.chatNow')}
          </Button>
          <LocalizedLink
            to={ROUTES.createCharacter}
            className={buttonClassName({ variant: 'secondary' })}
            data-testid="landing-create"
          >
            <PlusIcon size={18} />
            {t('landingPage.createOwn')}
          </LocalizedLink>
        </div>
      </section>

      <section className={styles.characters}>
        <h2 className={styles.sectionTitle}>{t('landingPage.charactersTitle')}</h2>
        {state.status === 'loading' ? (
          <div className={styles.grid} aria-busy="true">
            {Array.from({ length: TOPIC_GRID_SIZE / 2 }, (_, i) => (
              <CharacterCardSkeleton key={i} />
            ))}
          </div>
        ) : state.status === 'failed' ? (
          <div className={styles.empty}>
            <p>{t('home.loadFailed')}</p>
            <Button variant="secondary" size="small" onClick={retry}>
              {t('home.retry')}
            </Button>
          </div>
        ) : state.characters.length > 0 ? (
          <div className={styles.grid} data-testid="landing-grid">
            {state.characters.map((character, index) => (
              <CharacterCard
                key={character.characterId}
                character={character}
                href={localize(chatPathFor(character.characterId))}
                onOpen={openCharacter}
                eager={index < 6}
              />
            ))}
          </div>
        ) : (
          <div className={styles.empty} data-testid="landing-no-match">
            <p>{t('landingPage.noMatches')}</p>
          </div>
        )}
        <div className={styles.more}>
          <LocalizedLink
            to={homePathFor(config.gender)}
            className={buttonClassName({ variant: 'ghost', size: 'small' })}
          >
            <ExploreIcon size={16} />
            {t('landingPage.exploreAll')}
          </LocalizedLink>
        </div>
      </section>

      <Faq items={copy.faq} />
      <CreateCta gender={config.gender} />
    </>
  );
}

/** A search-topic landing page (spec section 2), with its own title, description and keywords. */
export default function LandingPage({ topic }: { topic: TopicKey }) {
  const { t } = useTranslation();
  const localize = useLocalizedPath();
  const path = LANDING_ROUTES.find((route) => route.key === topic)?.path ?? ROUTES.home;
  usePageMeta({
    title: t(`seo.${topic}.title`),
    description: t(`seo.${topic}.description`),
    keywords: t(`seo.${topic}.keywords`),
    breadcrumbs: [
      { name: t('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: t(`landing.${topic}`), path: localize(path) },
    ],
  });
  useEffect(() => trackPageView(topic), [topic]);
  return (
    <div className={styles.page} data-testid={`landing-${topic}`}>
      <Suspense fallback={<Spinner label={t('common.loading')} />}>
        <LandingBody key={topic} topic={topic} />
      </Suspense>
    </div>
  );
}

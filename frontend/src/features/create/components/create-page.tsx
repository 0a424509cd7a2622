import { useAtomValue } from 'jotai';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { gettingUserAtom, isLoggedInAtom } from '@/app/store';
import { buttonClassName } from '@/components/button';
import { Logo } from '@/components/logo';
import { LocalizedLink } from '@/components/localized-link';
import { Spinner } from '@/components/splash';
import { getAllMyCharacters, type MyCharacter } from '@/features/create/api/create-api';
import { CharacterBuilder } from '@/features/create/components/character-builder';
import styles from '@/features/create/components/create.module.css';
import type { BuilderMode } from '@/features/create/hooks/use-builder-draft';
import { sanitizeDraft } from '@/features/create/lib/draft';
import { useLoad } from '@/hooks/use-load';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { Gender } from '@/lib/api-types';
import { ROUTES } from '@/lib/routes';
import { trackPageView } from '@/lib/telemetry';

/** The builder's entry points: the app's own, and two marketing pages outside the frame (spec section 2). */
export type CreateVariant = 'createCharacter' | 'createGf' | 'yourAiGirlfriend';

const PATHS: Record<CreateVariant, string> = {
  createCharacter: ROUTES.createCharacter,
  createGf: ROUTES.createGf,
  yourAiGirlfriend: ROUTES.yourAiGirlfriend,
};

/** `?edit=<characterId>`: the builder opens prefilled from that character's draft (My AI's Edit). */
function useEditTarget(): {
  characterId: string | null;
  state: 'none' | 'loading' | 'ready' | 'missing';
  character: MyCharacter | null;
} {
  const [params] = useSearchParams();
  const characterId = params.get('edit');
  const loggedIn = useAtomValue(isLoggedInAtom);
  // The answer names the character it was for: one for another `?edit=` is not shown.
  const found = useLoad(
    (): Promise<{ id: string; character: MyCharacter | null }> => {
      const id = characterId ?? '';
      return getAllMyCharacters().then(
        (envelope) => {
          const list = envelope.success && Array.isArray(envelope.data) ? envelope.data : [];
          return { id, character: list.find((c) => c.character.characterId === id) ?? null };
        },
        () => ({ id, character: null }),
      );
    },
    [characterId],
    { enabled: characterId !== null && loggedIn, keepData: true },
  ).data;
  if (!characterId) return { characterId: null, state: 'none', character: null };
  if (!found || found.id !== characterId) return { characterId, state: 'loading', character: null };
  return { characterId, state: found.character ? 'ready' : 'missing', character: found.character };
}

/**
 * `/createcharacter` (and `/creategf`, `/your-ai-girlfriend`, the marketing entry points with
 * their own heading and head): the character builder, or with `?edit=` the same builder for
 * one of the user's characters.
 */
export default function CreatePage({ variant = 'createCharacter' }: { variant?: CreateVariant }) {
  const { t } = useTranslation('create');
  const { t: tApp } = useTranslation();
  const localize = useLocalizedPath();
  const edit = useEditTarget();
  const gettingUser = useAtomValue(gettingUserAtom);
  const loggedIn = useAtomValue(isLoggedInAtom);
  const editing = edit.characterId !== null;

  usePageMeta({
    title: tApp(`seo.${variant}.title`),
    description: tApp(`seo.${variant}.description`),
    keywords: tApp(`seo.${variant}.keywords`),
    breadcrumbs: [
      { name: tApp('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      {
        name: variant === 'createCharacter' ? tApp('nav.createCharacter') : t(`page.${variant}.heading`),
        path: localize(PATHS[variant]),
      },
    ],
  });
  useEffect(() => trackPageView(variant), [variant]);

  const mode = useMemo<BuilderMode | null>(() => {
    if (!editing) return { kind: 'create' };
    if (edit.state !== 'ready' || !edit.character) return null;
    const { character, draft } = edit.character;
    return {
      kind: 'edit',
      characterId: character.characterId,
      initial: sanitizeDraft(draft, draft?.gender === Gender.guys ? Gender.guys : Gender.girls),
    };
  }, [editing, edit.state, edit.character]);

  const headingKey = editing ? 'edit' : variant;
  let body;
  if (editing && !loggedIn && !gettingUser) {
    body = (
      <div className={styles.signedOut} data-testid="edit-signed-out">
        <p>{t('myAi.signedOut')}</p>
      </div>
    );
  } else if (editing && edit.state === 'missing') {
    body = (
      <div className={styles.signedOut} data-testid="edit-missing">
        <p>{t('errors.gone')}</p>
        <LocalizedLink to={ROUTES.myAi} className={buttonClassName({ variant: 'secondary', size: 'small' })}>
          {t('myAi.heading')}
        </LocalizedLink>
      </div>
    );
  } else if (!mode) {
    body = <Spinner label={t('loading')} />;
  } else {
    // A new key per mode: the edited character's draft never mixes with the stored one.
    body = (
      <CharacterBuilder
        key={editing ? `edit-${edit.characterId}` : 'create'}
        mode={mode}
        forcedGender={variant === 'createCharacter' ? undefined : Gender.girls}
      />
    );
  }

  const page = (
    <div className={styles.page} data-testid="create-page" data-variant={variant}>
      <header>
        <h1 className={styles.heading}>{t(`page.${headingKey}.heading`)}</h1>
        <p className={styles.intro}>{t(`page.${headingKey}.intro`)}</p>
      </header>
      {body}
    </div>
  );
  if (variant === 'createCharacter') return page;
  // Outside the main frame: the logo leads back into the app.
  return (
    <div className={styles.standalone}>
      <div className={styles.standaloneBar}>
        <Logo asHeading={false} label={tApp('header.home')} />
        <LocalizedLink to={ROUTES.home} className={styles.intro}>
          {t('page.explore')}
        </LocalizedLink>
      </div>
      {page}
    </div>
  );
}

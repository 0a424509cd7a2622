import { useTranslation } from 'react-i18next';
import { getCharacterInfo } from '@/features/chat/api/chat-api';
import { useLoad } from '@/hooks/use-load';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { Gender, type Character } from '@/lib/api-types';
import { ROUTES } from '@/lib/routes';
import { serverData } from '@/lib/server-data';
import { APP_NAME } from '@/lib/site';

/**
 * The head of `/chat` and `/chat/{characterId}`, as the server writes it for crawlers
 * (server/src/content/seo): a character the visitor may see gets its own indexable page (name,
 * introduction, tags); the chat list, and a character that is restricted or gone, the chat
 * screen's texts and `noindex`.
 */
export function useChatPageMeta(characterId: string | undefined): void {
  const { t } = useTranslation();
  const localize = useLocalizedPath();
  // Without the character (none, or not answered), the chat screen's own texts.
  const fromServer = servedCharacter(characterId);
  const { data: loaded } = useLoad(
    (): Promise<Character | null> =>
      getCharacterInfo(characterId ?? '').then(
        (envelope) => (envelope.success && envelope.data ? envelope.data : null),
        () => null,
      ),
    [characterId],
    { enabled: characterId !== undefined && characterId !== '' && !fromServer },
  );
  const character = fromServer ?? loaded;

  const home = { name: t('seo.breadcrumbHome'), path: localize(ROUTES.home) };
  let meta;
  if (character && character.characterId === characterId) {
    const guys = character.gender === Gender.guys;
    const kind = guys ? t('landing.aiBoyfriend') : t('landing.aiGirlfriend');
    meta = {
      title: `${character.characterName} – ${kind} – ${APP_NAME}`,
      description: character.introduction,
      keywords: [character.characterName, kind, ...character.tags].join(', '),
      breadcrumbs: [
        home,
        ...(guys ? [{ name: kind, path: localize(ROUTES.boyfriendHome) }] : []),
        { name: character.characterName, path: localize(`${ROUTES.chat}/${characterId}`) },
      ],
    };
  } else {
    meta = {
      title: t('chat.metaTitle'),
      description: t('chat.metaDescription'),
      keywords: '',
      noIndex: true,
      breadcrumbs: [home, { name: t('nav.chat'), path: localize(ROUTES.chat) }],
    };
  }
  usePageMeta(meta);
}

/** The character the server rendered this page with, if it is `characterId` (no second request). */
export function servedCharacter(characterId: string | undefined): Character | undefined {
  const served = serverData<Character>('character');
  return served && served.characterId === characterId ? served : undefined;
}

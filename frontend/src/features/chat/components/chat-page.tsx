import { useAtomValue, useSetAtom } from 'jotai';
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { chatBeforePagePathAtom, gettingUserAtom, isLoggedInAtom, showLoginTipAtom, userInfoAtom } from '@/app/store';
import { Button } from '@/components/button';
import { ChatIcon } from '@/components/icons';
import { Spinner } from '@/components/splash';
import { getCharacterInfo } from '@/features/chat/api/chat-api';
import styles from '@/features/chat/components/chat.module.css';
import { Conversation, type HeaderChat } from '@/features/chat/components/conversation';
import { ConversationList, type OpenChat } from '@/features/chat/components/conversation-list';
import { MessageText } from '@/features/chat/components/message-text';
import { useChatList } from '@/features/chat/hooks/use-chat-list';
import { mergeByActivity, type ListExtra } from '@/features/chat/lib/list-entries';
import { servedCharacter, useChatPageMeta } from '@/features/chat/hooks/use-chat-page-meta';
import { useLoad } from '@/hooks/use-load';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { useIsMobile } from '@/hooks/use-media-query';
import type { Character } from '@/lib/api-types';
import { fillPlaceholders } from '@/lib/placeholders';
import { onServerEvent } from '@/lib/realtime';
import { ROUTES, chatPathFor } from '@/lib/routes';
import { revealApp } from '@/lib/server-data';
import { trackPageView } from '@/lib/telemetry';

/**
 * A character's page seen signed out (`/chat/{characterId}`, linked from the sitemap and the
 * home grid): the character itself — portrait, name, age, introduction and greeting — with a
 * clear way to sign in and chat. Signing in comes back here: the password login reloads this
 * page, and the mailed link returns to it (`returnTo`, docs/api.md "Sign-in"). The character
 * comes from `getCharacterInfo`, which answers signed-out visitors only what they may see.
 */
function CharacterPreview({ character }: { character: Character }) {
  const { t } = useTranslation();
  const openLogin = useSetAtom(showLoginTipAtom);
  // "{{user}}" read mid-sentence by someone not signed in: "come here, you", not "You".
  const you = t('chat.youInText');
  const name = character.characterName;
  return (
    <section className={styles.preview} data-testid="chat-character-preview">
      <img
        className={styles.previewPortrait}
        src={character.characterPhoto}
        alt={name}
        data-testid="preview-portrait"
      />
      <div className={styles.previewText}>
        <h1 className={styles.previewName} data-testid="preview-name">
          {name}
        </h1>
        <p className={styles.previewAge} data-testid="preview-age">
          {t('home.age', { count: character.characterAge })}
        </p>
        <p className={styles.previewIntro} data-testid="preview-introduction">
          {fillPlaceholders(character.introduction, name, you)}
        </p>
        <div className={styles.previewGreeting} data-testid="preview-greeting">
          <MessageText text={fillPlaceholders(character.greeting, name, you)} />
        </div>
        <Button onClick={() => openLogin(true)} data-testid="preview-sign-in">
          {t('chat.signInToChatWith', { name })}
        </Button>
        <p className={styles.previewNote}>{t('chat.signedOutText')}</p>
      </div>
    </section>
  );
}

/**
 * Signed out, the chat screen shows the character asked for (above), or, without one the
 * visitor may see, asks to sign in like the guarded menu items: the login prompt opens once,
 * and closes again when the visitor leaves without signing in.
 */
function SignedOut({ characterId }: { characterId: string | undefined }) {
  const { t } = useTranslation();
  const openLogin = useSetAtom(showLoginTipAtom);
  const wanted = characterId !== undefined && characterId !== '';
  // The character as the server rendered the page, when it did (no second request).
  const fromServer = servedCharacter(characterId);
  const { data: loaded, loading } = useLoad(
    (): Promise<Character | null> =>
      getCharacterInfo(characterId ?? '').then(
        (envelope) => (envelope.success && envelope.data ? envelope.data : null),
        () => null,
      ),
    [characterId],
    { enabled: wanted && !fromServer },
  );
  const character = fromServer ?? loaded;
  const shown = character && character.characterId === characterId ? character : null;
  const asking = !shown && !loading;
  useEffect(() => {
    if (!asking) return;
    openLogin(true);
    return () => openLogin(false);
  }, [asking, openLogin]);
  if (shown) return <CharacterPreview character={shown} />;
  if (loading) return <Spinner label={t('common.loading')} />;
  return (
    <section className={styles.signedOut} data-testid="chat-signed-out">
      <span className={styles.emptyIcon}>
        <ChatIcon size={28} />
      </span>
      <h1 className={styles.emptyTitle}>{t('chat.signedOutTitle')}</h1>
      <p>{t('chat.signedOutText')}</p>
      <Button onClick={() => openLogin(true)}>{t('header.signIn')}</Button>
    </section>
  );
}

/**
 * What the app adds to the chat screen from other features (group chats, issue 31): entries
 * of the list, buttons beside its heading, and a pane shown in place of a conversation.
 */
export interface ChatScreenExtras {
  entries: readonly ListExtra<ReactNode>[];
  actions?: ReactNode;
  /** Open beside the list (on a phone, alone), as a conversation would be. */
  pane?: ReactNode;
  /** The entries have loaded (a wide screen waits for them before opening the most recent). */
  ready: boolean;
  /** What a one-to-one chat's header adds for its character (the Call button, issue 32). */
  headerAction?: (chat: HeaderChat) => ReactNode;
}

/** The list and the open chat side by side on wide screens; one of them at a time on phones. */
function ChatScreen({
  characterId,
  extras,
}: {
  characterId: string | undefined;
  extras: ChatScreenExtras | undefined;
}) {
  const { t } = useTranslation();
  const mobile = useIsMobile();
  const navigate = useNavigate();
  const localize = useLocalizedPath();
  const chats = useChatList();
  const before = useAtomValue(chatBeforePagePathAtom);
  const setBefore = useSetAtom(chatBeforePagePathAtom);
  const autoOpened = useRef(false);
  const userName = useAtomValue(userInfoAtom)?.userName || t('chat.you');
  // The open chat's character, for the list until the list holds the chat itself.
  const [openCharacter, setOpenCharacter] = useState<Character | null>(null);
  const open: OpenChat | undefined =
    openCharacter && openCharacter.characterId === characterId
      ? {
          characterId: openCharacter.characterId,
          characterName: openCharacter.characterName,
          characterPhoto: openCharacter.characterPhoto,
          preview: fillPlaceholders(openCharacter.greeting, openCharacter.characterName, userName),
        }
      : undefined;

  // Wide screens open the most recent chat rather than an empty pane.
  useEffect(() => {
    if (mobile || characterId || extras?.pane || autoOpened.current || chats.status !== 'ready') return;
    if (extras && !extras.ready) return;
    const newest = mergeByActivity(chats.list, extras?.entries ?? [])[0];
    autoOpened.current = true;
    const to = newest?.kind === 'chat' ? chatPathFor(newest.summary.characterId) : newest?.extra.to;
    if (to) navigate(localize(to), { replace: true });
  }, [mobile, characterId, extras, chats.status, chats.list, navigate, localize]);

  const openFromList = useCallback(() => {
    // On a phone the list is a page of its own: the chat's back button returns to it.
    if (mobile) setBefore(window.location.pathname);
  }, [mobile, setBefore]);

  // Back to where the chat was opened from (a home keeps its list and scroll), else home.
  const back = useCallback(() => {
    const recorded = before !== ROUTES.home && before !== window.location.pathname;
    navigate(recorded ? before : localize(ROUTES.home));
  }, [before, localize, navigate]);

  // A chat not listed may have become one meanwhile (written to in another tab): ask again.
  const listed = chats.list.some((summary) => summary.characterId === characterId);
  const { reload } = chats;
  const onLoaded = useCallback(() => {
    if (!listed) void reload();
  }, [listed, reload]);

  // The open chat deleted in another tab goes here too, as it does in that tab.
  useEffect(
    () =>
      onServerEvent((event) => {
        if (event.event === 'chatDeleted' && event.data.characterId === characterId)
          navigate(localize(ROUTES.chat), { replace: true });
      }),
    [characterId, navigate, localize],
  );

  const deleteChat = useCallback(
    async (id: string) => {
      const done = await chats.remove(id);
      if (done && id === characterId) navigate(localize(ROUTES.chat), { replace: true });
      return done;
    },
    [chats, characterId, navigate, localize],
  );

  const list = (
    <ConversationList
      list={chats.list}
      open={open}
      status={chats.status}
      activeId={characterId}
      onOpen={openFromList}
      onDelete={deleteChat}
      onRetry={() => void chats.reload()}
      extras={extras?.entries}
      actions={extras?.actions}
    />
  );
  const pane = extras?.pane;
  const conversation = pane ? (
    pane
  ) : characterId ? (
    <Conversation
      key={characterId}
      characterId={characterId}
      summary={chats.list.find((summary) => summary.characterId === characterId)}
      mobile={mobile}
      onBack={back}
      onLoaded={onLoaded}
      onCharacter={setOpenCharacter}
      headerAction={extras?.headerAction}
    />
  ) : (
    <div className={styles.centerNote}>
      {chats.status === 'loading' ? (
        <Spinner label={t('common.loading')} />
      ) : chats.list.length > 0 ? (
        <p>{t('chat.pickConversation')}</p>
      ) : (
        // No chats: the list beside says so and leads to Explore.
        <ChatIcon size={40} aria-hidden="true" className={styles.faintIcon} />
      )}
    </div>
  );

  if (mobile) {
    return (
      <div
        className={`${styles.page} ${styles.mobilePage} ${characterId || pane ? styles.mobileConversation : ''}`}
        data-testid="chat-page"
      >
        {characterId || pane ? conversation : list}
      </div>
    );
  }
  return (
    <div className={styles.page} data-testid="chat-page">
      {list}
      {conversation}
    </div>
  );
}

/**
 * `/chat` and `/chat/{characterId}` (spec section 2): chatting signed in; signed out, the
 * character and a sign-in. `extras`: what the app adds from other features (group chats).
 */
export default function ChatPage({ extras }: { extras?: ChatScreenExtras }) {
  const { t } = useTranslation();
  const { characterId } = useParams();
  const getting = useAtomValue(gettingUserAtom);
  const loggedIn = useAtomValue(isLoggedInAtom);

  useChatPageMeta(characterId);
  useEffect(() => trackPageView('chat'), []);
  // Once it is known who is looking, the chat screen replaces the server's page.
  useLayoutEffect(() => {
    if (!getting) revealApp();
  }, [getting]);

  if (getting) return <Spinner label={t('common.loading')} />;
  if (!loggedIn) return <SignedOut characterId={characterId} />;
  return <ChatScreen characterId={characterId} extras={extras} />;
}

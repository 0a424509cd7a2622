import { useAtomValue } from 'jotai';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { globalWebConfigAtom, imageJobsAtom, recalledAtom } from '@/app/store';
import { Button } from '@/components/button';
import { ArrowLeftIcon, LockIcon } from '@/components/icons';
import { Lightbox, type LightboxImage } from '@/components/lightbox';
import { FlagIcon } from '@/components/moderation-icons';
import { ReportDialog } from '@/components/report-dialog';
import { Spinner } from '@/components/splash';
import { getCharacterInfo } from '@/features/chat/api/chat-api';
import { MemoryIcon } from '@/features/chat/components/chat-icons';
import { PendingPictures, PictureDialog } from '@/features/chat/components/chat-pictures';
import styles from '@/features/chat/components/chat.module.css';
import { Composer } from '@/features/chat/components/composer';
import { FailureBanner } from '@/features/chat/components/failure-banner';
import { GreetingChoices } from '@/features/chat/components/greeting-choices';
import { MemoriesPanel } from '@/features/chat/components/memories-panel';
import { MessageList, type VoiceControls } from '@/features/chat/components/message-list';
import { PersonaButton, PersonaDialog } from '@/features/chat/components/persona-dialog';
import { useChatThread } from '@/features/chat/hooks/use-chat-thread';
import { useMemories } from '@/features/chat/hooks/use-memories';
import { useVoicePlayer } from '@/features/chat/hooks/use-voice-player';
import { greetingOnly } from '@/features/chat/stores/chat-thread';
import { followRecalled } from '@/features/chat/stores/recalled';
import { buttonState } from '@/features/chat/stores/voice-playback';
import { useLoad } from '@/hooks/use-load';
import { useMediaQuery } from '@/hooks/use-media-query';
import type { Character, ChatMessage, ChatSummary } from '@/lib/api-types';
import { jobEnded } from '@/lib/image-jobs';
import { followImageJobs } from '@/lib/image-jobs-store';
import { notify } from '@/lib/notifications';
import type { ReportTarget } from '@/lib/report-api';
import { displayCoins } from '@/lib/site';

/** Wide enough to keep the memories panel open beside the chat from the start. */
const MEMORIES_OPEN_FROM = '(min-width: 1280px)';

export interface ConversationProps {
  characterId: string;
  /** What the conversation list knows, shown until the character's own info arrives. */
  summary: ChatSummary | undefined;
  mobile: boolean;
  onBack: () => void;
  /** History has loaded: a new conversation (its greeting just stored) now exists. */
  onLoaded: () => void;
  /** The character's info arrived (the list shows the open chat from it until it lists it). */
  onCharacter?: (character: Character) => void;
  /** What the app adds to the header for this character (the Call button), once it is known. */
  headerAction?: (chat: HeaderChat) => ReactNode;
}

/** The open chat as the header's added actions see it. */
export interface HeaderChat {
  characterId: string;
  characterName: string;
  characterPhoto: string;
  /** Free messages left today; null for paid users (unlimited). */
  creditsLeft: number | null;
}

/** One open chat: the character's header, the messages, the input and the memories panel. */
export function Conversation({
  characterId,
  summary,
  mobile,
  onBack,
  onLoaded,
  onCharacter,
  headerAction,
}: ConversationProps) {
  const { t } = useTranslation();
  const thread = useChatThread(characterId);
  const memories = useMemories(characterId);
  const wide = useMediaQuery(MEMORIES_OPEN_FROM);
  const [memoriesOpen, setMemoriesOpen] = useState(() => !mobile && wide);
  const [personaOpen, setPersonaOpen] = useState(false);
  const recalled = useAtomValue(recalledAtom);
  useEffect(followRecalled, []);

  // On a phone the panel is a sheet over the chat: it opens only when asked for (and closes
  // in the render that turns the screen into a phone's).
  const [wasMobile, setWasMobile] = useState(mobile);
  if (mobile !== wasMobile) {
    setWasMobile(mobile);
    if (mobile) setMemoriesOpen(false);
  }

  const character =
    useLoad(
      (): Promise<Character | null> =>
        getCharacterInfo(characterId).then(
          (envelope) => (envelope.success && envelope.data ? envelope.data : null),
          () => null,
        ),
      [characterId],
    ).data ?? null;

  useEffect(() => {
    if (character) onCharacter?.(character);
  }, [character, onCharacter]);

  const loaded = thread.load === 'ready';
  useEffect(() => {
    if (loaded) onLoaded();
  }, [loaded, onLoaded]);

  const name = character?.characterName ?? summary?.characterName ?? '';
  const [reporting, setReporting] = useState<ReportTarget | null>(null);
  const reportReply = useCallback(
    (message: ChatMessage) => setReporting({ characterId, characterName: name, messageId: message.messageId }),
    [characterId, name],
  );
  const photo = character?.characterPhoto ?? summary?.characterPhoto ?? '';
  const { state } = thread;
  const { defaultEnergy } = useAtomValue(globalWebConfigAtom);

  // Pictures asked for here (issue 16): their jobs, and the thread refetched when one ends,
  // since the picture is then a message of the conversation.
  useEffect(() => followImageJobs(), []);
  const { jobs } = useAtomValue(imageJobsAtom);
  const pictureJobs = useMemo(
    () => jobs.filter((job) => typeof job.origin === 'object' && job.origin.chat === characterId),
    [jobs, characterId],
  );
  const endedTiles = pictureJobs
    .flatMap((job) => job.tiles.filter((tile) => tile.status === 'done').map((tile) => tile.imageId))
    .join(',');
  const { refresh } = thread;
  useEffect(() => {
    if (endedTiles) void refresh();
  }, [endedTiles, refresh]);
  const heldImageIds = useMemo(
    () => new Set(state.messages.flatMap((m) => (m.image ? [m.image.imageId] : []))),
    [state.messages],
  );
  const shownJobs = pictureJobs.filter(
    (job) => !(jobEnded(job) && job.tiles.every((tile) => heldImageIds.has(tile.imageId))),
  );
  const [askingPicture, setAskingPicture] = useState(false);
  const [viewing, setViewing] = useState<{ image: LightboxImage; caption: string } | null>(null);
  const openPicture = useCallback((message: ChatMessage) => {
    if (message.image) setViewing({ image: message.image, caption: message.content });
  }, []);

  // Spoken replies (issue 16).
  const player = useVoicePlayer(characterId);
  const { toggle, dismiss, audioRef } = player;
  const voiceState = player.state;
  const voice = useMemo<VoiceControls>(
    () => ({
      stateOf: (messageId) => ({
        state: buttonState(voiceState, messageId),
        spokenBefore: voiceState.spoken[messageId] !== undefined,
        failure: voiceState.active?.messageId === messageId ? voiceState.active.failure : null,
      }),
      cost: defaultEnergy.genVoiceCoin,
      onToggle: (messageId) => void toggle(messageId),
      onDismiss: dismiss,
    }),
    [voiceState, defaultEnergy.genVoiceCoin, toggle, dismiss],
  );

  let body;
  if (thread.load === 'loading') body = <Spinner label={t('common.loading')} />;
  else if (thread.load === 'notFound') body = <p className={styles.centerNote}>{t('chat.notFound')}</p>;
  else if (thread.load === 'failed')
    body = (
      <div className={styles.centerNote}>
        <p>{t('chat.loadFailed')}</p>
        <Button variant="secondary" size="small" onClick={thread.retry}>
          {t('home.retry')}
        </Button>
      </div>
    );
  else
    body = (
      <MessageList
        state={state}
        loadingOlder={thread.loadingOlder}
        characterName={name}
        characterPhoto={photo}
        onLoadOlder={thread.loadOlder}
        onRegenerate={() => {
          if (!thread.regenerate()) notify.warning(t('chat.offline'));
        }}
        onContinue={() => {
          if (!thread.continueReply()) notify.warning(t('chat.offline'));
        }}
        onSwipe={(messageId, index) => {
          if (!thread.swipe(messageId, index)) notify.warning(t('chat.offline'));
        }}
        onEdit={thread.edit}
        onDelete={thread.remove}
        onReport={reportReply}
        voice={voice}
        onOpenPicture={openPicture}
        trailing={<PendingPictures jobs={shownJobs} heldImageIds={heldImageIds} name={name} photo={photo} />}
        remembered={{ of: (messageId) => recalled.get(messageId), fixes: memories }}
      />
    );

  return (
    <div
      className={`${styles.conversation} ${memoriesOpen && !mobile ? styles.withMemories : ''}`}
      data-testid="conversation"
      data-character-id={characterId}
    >
      <section className={styles.chatColumn} aria-label={name}>
        <header className={styles.chatHeader}>
          <button
            type="button"
            className={styles.iconButton}
            onClick={onBack}
            aria-label={t('chat.back')}
            title={t('chat.back')}
            data-testid="chat-back"
          >
            <ArrowLeftIcon size={20} />
          </button>
          <span className={styles.portrait}>{photo && <img src={photo} alt="" />}</span>
          <div className={styles.headerText}>
            <h1 className={styles.characterName} data-testid="chat-character-name">
              {name}
              {character?.usedType === 1 && (
                <LockIcon size={14} className={styles.lockMark} aria-label={t('home.locked')} />
              )}
            </h1>
            {character && (
              <span className={styles.characterMeta}>{t('home.age', { count: character.characterAge })}</span>
            )}
          </div>
          {character &&
            thread.load === 'ready' &&
            headerAction?.({
              characterId,
              characterName: name,
              characterPhoto: photo,
              creditsLeft: state.creditsLeft,
            })}
          <PersonaButton className={styles.iconButton} onClick={() => setPersonaOpen(true)} />
          <button
            type="button"
            className={styles.iconButton}
            onClick={() => setReporting({ characterId, characterName: name })}
            aria-label={t('report.reportCharacter')}
            title={t('report.reportCharacter')}
            data-testid="chat-report"
          >
            <FlagIcon size={18} />
          </button>
          <button
            type="button"
            className={`${styles.memoriesToggle} ${memoriesOpen ? styles.toggleOn : ''}`}
            onClick={() => setMemoriesOpen(!memoriesOpen)}
            aria-expanded={memoriesOpen}
            aria-label={t('chat.memories')}
            data-testid="memories-toggle"
          >
            {memories.saving ? <span className={styles.buttonSpinner} aria-hidden="true" /> : <MemoryIcon size={18} />}
            <span className={styles.toggleLabel}>{t('chat.memories')}</span>
            {memories.memories.length > 0 && <span className={styles.countBadge}>{memories.memories.length}</span>}
          </button>
        </header>
        {body}
        {thread.load === 'ready' &&
          character &&
          (character.alternateGreetings?.length ?? 0) > 0 &&
          greetingOnly(state) && (
            <GreetingChoices
              greeting={character.greeting}
              alternates={character.alternateGreetings ?? []}
              characterName={name}
              onChoose={thread.chooseGreeting}
            />
          )}
        {state.failure && <FailureBanner failure={state.failure} onDismiss={thread.dismissFailure} />}
        {thread.load === 'ready' && (
          <Composer
            characterName={name}
            replying={state.pending !== null}
            creditsLeft={state.creditsLeft}
            onSend={thread.send}
            onStop={thread.stop}
            onPicture={() => setAskingPicture(true)}
            pictureCost={displayCoins(defaultEnergy.genPictureCoin)}
          />
        )}
        {/* The one audio element the replies play through. */}
        <audio ref={audioRef} preload="auto" data-testid="voice-audio" hidden />
      </section>
      {memoriesOpen && (
        <MemoriesPanel memories={memories} characterName={name} sheet={mobile} onClose={() => setMemoriesOpen(false)} />
      )}
      <ReportDialog target={reporting} onClose={() => setReporting(null)} />
      <PersonaDialog
        open={personaOpen}
        characterId={characterId}
        characterName={name}
        onClose={() => setPersonaOpen(false)}
      />
      <PictureDialog
        open={askingPicture}
        characterId={characterId}
        characterName={name}
        onClose={() => setAskingPicture(false)}
      />
      <Lightbox image={viewing?.image ?? null} caption={viewing?.caption ?? name} onClose={() => setViewing(null)} />
    </div>
  );
}

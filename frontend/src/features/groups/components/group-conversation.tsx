import { useAtomValue } from 'jotai';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isPaidUserAtom, languageAtom } from '@/app/store';
import { Button } from '@/components/button';
import { ArrowLeftIcon } from '@/components/icons';
import { Spinner } from '@/components/splash';
import { deleteGroup, getGroup } from '@/features/groups/api/groups-api';
import { useChatParts } from '@/features/groups/components/chat-parts';
import { GroupMessageList } from '@/features/groups/components/group-message-list';
import styles from '@/features/groups/components/groups.module.css';
import { MembersPanel } from '@/features/groups/components/members-panel';
import { PortraitStack } from '@/features/groups/components/portrait-stack';
import { useGroupThread } from '@/features/groups/hooks/use-group-thread';
import { mostReplies, type GroupIntent } from '@/features/groups/lib/cost';
import { memberNames } from '@/features/groups/lib/group-list';
import { useLoad } from '@/hooks/use-load';
import { useMediaQuery } from '@/hooks/use-media-query';
import { ApiCode, type Group } from '@/lib/api-types';
import { notify } from '@/lib/notifications';

/** Wide enough to keep the members panel open beside the chat from the start (as the memories panel). */
const PANEL_OPEN_FROM = '(min-width: 1280px)';

export interface GroupConversationProps {
  groupId: string;
  /** What the chat list knows, shown until the group itself arrives. */
  listed: Group | undefined;
  mobile: boolean;
  onBack: () => void;
  /** The server answered with the group as it now is (a change made here). */
  onChanged: (group: Group) => void;
  onDeleted: (groupId: string) => void;
}

/** What an action costs, shown before it: the most replies it can bring, each a free message for a free user. */
function CostNote({ group, intent }: { group: Group; intent: GroupIntent }) {
  const { t } = useTranslation();
  const paid = useAtomValue(isPaidUserAtom);
  const most = mostReplies(group, intent);
  if (intent === 'send' && most === 0) return <span data-testid="group-cost">{t('groups.costManual')}</span>;
  return (
    <span data-testid="group-cost" data-most={most}>
      {t(paid ? 'groups.costPaid' : 'groups.costFree', { most })}
    </span>
  );
}

/** One open group chat: its header, the messages, the round controls, the input and the members panel. */
export function GroupConversation({ groupId, listed, mobile, onBack, onChanged, onDeleted }: GroupConversationProps) {
  const { t } = useTranslation();
  const { Composer, FailureBanner } = useChatParts();
  const language = useAtomValue(languageAtom);
  const thread = useGroupThread(groupId);
  const wide = useMediaQuery(PANEL_OPEN_FROM);
  const [panelOpen, setPanelOpen] = useState(() => !mobile && wide);
  const [wasMobile, setWasMobile] = useState(mobile);
  if (mobile !== wasMobile) {
    setWasMobile(mobile);
    if (mobile) setPanelOpen(false);
  }

  const loaded = useLoad(
    (): Promise<Group | null> =>
      getGroup(groupId).then((envelope) => {
        if (envelope.success && envelope.data) return envelope.data;
        if (envelope.code === ApiCode.notFound) return null;
        throw new Error(envelope.msg);
      }),
    [groupId],
  );
  const group = loaded.data ?? listed ?? null;
  const { setData } = loaded;
  const changed = (next: Group) => {
    setData(() => next);
    onChanged(next);
  };
  const { state } = thread;

  const offline = () => notify.warning(t('chat.offline'));
  const pick = (characterId: string) => {
    if (!thread.pick(characterId)) offline();
  };

  let body;
  if (thread.load === 'notFound' || (loaded.data === null && !loaded.loading))
    body = <p className={styles.centerNote}>{t('groups.notFound')}</p>;
  else if (thread.load === 'loading' || !group) body = <Spinner label={t('common.loading')} />;
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
      <GroupMessageList
        state={state}
        loadingOlder={thread.loadingOlder}
        groupName={group.name}
        members={group.members}
        onLoadOlder={thread.loadOlder}
        onRegenerate={() => {
          if (!thread.regenerate()) offline();
        }}
        onContinue={() => {
          if (!thread.continueReply()) offline();
        }}
        onSwipe={(messageId, index) => {
          if (!thread.swipe(messageId, index)) offline();
        }}
        onEdit={thread.edit}
        onDelete={thread.remove}
      />
    );

  const ready = thread.load === 'ready' && group !== null;
  const speakers = group?.members.filter((member) => !member.muted) ?? [];

  return (
    <div
      className={`${styles.conversation} ${panelOpen && !mobile && group ? styles.withPanel : ''}`}
      data-testid="group-conversation"
      data-group-id={groupId}
    >
      <section className={styles.chatColumn} aria-label={group?.name ?? ''}>
        <header className={styles.chatHeader}>
          <button
            type="button"
            className={styles.iconButton}
            onClick={onBack}
            aria-label={t('chat.back')}
            title={t('chat.back')}
            data-testid="group-back"
          >
            <ArrowLeftIcon size={20} />
          </button>
          {group && <PortraitStack members={group.members} size="header" />}
          <div className={styles.headerText}>
            <h1 className={styles.groupName} data-testid="group-name">
              {group?.name}
            </h1>
            {group && <span className={styles.groupMeta}>{memberNames(group, language)}</span>}
          </div>
          <button
            type="button"
            className={`${styles.panelToggle} ${panelOpen ? styles.toggleOn : ''}`}
            onClick={() => setPanelOpen(!panelOpen)}
            aria-expanded={panelOpen}
            aria-label={t('groups.members')}
            disabled={!group}
            data-testid="group-members-toggle"
          >
            <span className={styles.toggleCount}>{group?.members.length ?? ''}</span>
            <span className={styles.toggleLabel}>{t('groups.members')}</span>
          </button>
        </header>
        {body}
        {state.failure && <FailureBanner failure={state.failure} onDismiss={thread.dismissFailure} />}
        {ready && (
          <div className={styles.roundTools}>
            <button
              type="button"
              className={styles.pillButton}
              disabled={state.running || speakers.length === 0}
              onClick={() => {
                if (!thread.letThemTalk()) offline();
              }}
              title={t('groups.letThemTalkTitle', { most: mostReplies(group, 'talk') })}
              data-testid="group-talk"
            >
              {t('groups.letThemTalk')}
            </button>
            <label className={`${styles.pickLabel} ${group.activation === 'manual' ? styles.pickProminent : ''}`}>
              <span className={styles.pickText}>{t('groups.whoNext')}</span>
              <select
                className={styles.smallSelect}
                value=""
                disabled={state.running || speakers.length === 0}
                onChange={(event) => {
                  if (event.target.value) pick(event.target.value);
                }}
                data-testid="group-pick"
              >
                <option value="">{t('groups.pickPlaceholder')}</option>
                {speakers.map((member) => (
                  <option key={member.characterId} value={member.characterId}>
                    {member.characterName}
                  </option>
                ))}
              </select>
            </label>
            <span className={styles.cost}>
              <CostNote group={group} intent="send" />
            </span>
          </div>
        )}
        {ready && (
          <Composer
            characterName={group.name}
            replying={state.running}
            creditsLeft={null}
            onSend={thread.send}
            onStop={thread.stop}
          />
        )}
      </section>
      {panelOpen && group && (
        <MembersPanel
          group={group}
          running={state.running}
          sheet={mobile}
          onClose={() => setPanelOpen(false)}
          onChanged={changed}
          onPick={(characterId) => {
            if (mobile) setPanelOpen(false);
            pick(characterId);
          }}
          onDelete={async () => {
            const envelope = await deleteGroup(groupId);
            if (envelope.success) onDeleted(groupId);
            return envelope.success;
          }}
        />
      )}
    </div>
  );
}

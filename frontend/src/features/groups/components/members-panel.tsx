import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { CloseIcon, PlusIcon, TrashIcon } from '@/components/icons';
import { Modal } from '@/components/modal';
import {
  addMember,
  MAX_MEMBERS,
  MIN_MEMBERS,
  removeMember,
  updateGroup,
  updateMember,
} from '@/features/groups/api/groups-api';
import { CharacterPicker } from '@/features/groups/components/character-picker';
import { GroupSettingsFields, type GroupSettings } from '@/features/groups/components/group-settings-fields';
import styles from '@/features/groups/components/groups.module.css';
import { usePickableCharacters } from '@/features/groups/hooks/use-pickable-characters';
import { groupFieldError, type GroupField } from '@/features/groups/lib/field-errors';
import type { Group, GroupMember } from '@/lib/api-types';
import { notify } from '@/lib/notifications';

/** The talkativeness steps offered (0–100; SillyTavern's slider, in five steps). */
export const TALKATIVENESS_LEVELS = [0, 25, 50, 75, 100] as const;

export interface MembersPanelProps {
  group: Group;
  /** A round is running: nobody is picked to speak meanwhile. */
  running: boolean;
  sheet: boolean;
  onClose: () => void;
  /** The server answered with the group as it now is. */
  onChanged: (group: Group) => void;
  /** Make this member speak next (`groupPick`). */
  onPick: (characterId: string) => void;
  onDelete: () => Promise<boolean>;
}

type Answer = Awaited<ReturnType<typeof updateMember>>;

const settingsOf = (group: Group): GroupSettings => ({
  name: group.name,
  scenario: group.scenario,
  activation: group.activation,
  talkCap: group.talkCap,
  allowSelfResponses: group.allowSelfResponses,
});

/**
 * Who is in the group and how it runs: each member can be muted, made to speak, made more or
 * less talkative and removed; members are added from the user's chats and the catalogue; the
 * name, scenario, order and "let them talk" cap change; the group can be deleted.
 */
export function MembersPanel({ group, running, sheet, onClose, onChanged, onPick, onDelete }: MembersPanelProps) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [removing, setRemoving] = useState<GroupMember | null>(null);
  const [settings, setSettings] = useState<GroupSettings>(() => settingsOf(group));
  const [settingsError, setSettingsError] = useState<{ field: GroupField; text: string } | null>(null);
  // The form follows the group when it changes elsewhere, unless edited here since.
  const [formFor, setFormFor] = useState(group);
  if (formFor !== group) {
    const untouched = JSON.stringify(settings) === JSON.stringify(settingsOf(formFor));
    setFormFor(group);
    if (untouched) setSettings(settingsOf(group));
  }
  const changed = JSON.stringify(settings) !== JSON.stringify(settingsOf(group));

  // A sheet closes with Escape, like the app's other overlays (a dialog over it closes first).
  const dialogOpen = adding || deleting || removing !== null;
  useEffect(() => {
    if (!sheet || dialogOpen) return;
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [sheet, dialogOpen, onClose]);

  /** Runs one call that answers the group; a refusal is told in a notification. */
  const run = async (key: string, call: () => Promise<Answer>) => {
    setBusy(key);
    try {
      const envelope = await call();
      if (envelope.success && envelope.data) {
        onChanged(envelope.data);
        return true;
      }
      const explained = groupFieldError(envelope.code, envelope.msg);
      notify.warning(explained ? t(explained.key) : envelope.msg || t('CommonErrorMsg'));
      return false;
    } catch {
      return false;
    } finally {
      setBusy(null);
    }
  };

  const saveSettings = async () => {
    setSettingsError(null);
    setBusy('settings');
    try {
      const envelope = await updateGroup({
        groupId: group.groupId,
        name: settings.name.trim(),
        scenario: settings.scenario.trim(),
        activation: settings.activation,
        talkCap: settings.talkCap,
        allowSelfResponses: settings.allowSelfResponses,
      });
      if (envelope.success && envelope.data) {
        onChanged(envelope.data);
        setSettings(settingsOf(envelope.data));
        return;
      }
      const explained = groupFieldError(envelope.code, envelope.msg);
      setSettingsError({ field: explained?.field ?? 'other', text: explained ? t(explained.key) : envelope.msg });
    } catch {
      // The connection notification has been shown; the form stays.
    } finally {
      setBusy(null);
    }
  };

  const seated = new Set(group.members.map((m) => m.characterId));
  const canRemove = group.members.length > MIN_MEMBERS;

  const panel = (
    <aside
      className={`${styles.panel} ${sheet ? styles.panelSheet : ''}`}
      aria-label={t('groups.members')}
      data-testid="group-members-panel"
    >
      {sheet && <span className={styles.sheetHandle} aria-hidden="true" />}
      <div className={styles.panelHead}>
        <h2 className={styles.panelTitle}>{t('groups.members')}</h2>
        <button
          type="button"
          className={styles.iconButton}
          onClick={onClose}
          aria-label={t('common.close')}
          data-testid="group-members-close"
        >
          <CloseIcon size={18} />
        </button>
      </div>
      <ul className={styles.memberList}>
        {group.members.map((member) => {
          const name = member.characterName || t('groups.formerMember');
          const key = member.characterId;
          return (
            <li
              key={key}
              className={`${styles.member} ${member.muted ? styles.memberMuted : ''}`}
              data-testid="group-member"
              data-character-id={key}
              data-muted={member.muted}
            >
              <span className={styles.avatar} aria-hidden="true">
                {member.characterPhoto && <img src={member.characterPhoto} alt="" />}
              </span>
              <div className={styles.memberText}>
                <span className={styles.memberName}>{name}</span>
                {member.muted && <span className={styles.mutedMark}>{t('groups.muted')}</span>}
                <label className={styles.talkLabel}>
                  {t('groups.talkativeness')}
                  <select
                    className={styles.smallSelect}
                    value={member.talkativeness}
                    disabled={busy !== null}
                    onChange={(event) =>
                      void run(`talk-${key}`, () =>
                        updateMember({
                          groupId: group.groupId,
                          characterId: key,
                          talkativeness: Number(event.target.value),
                        }),
                      )
                    }
                    data-testid="group-member-talkativeness"
                  >
                    {[...new Set([...TALKATIVENESS_LEVELS, member.talkativeness])]
                      .sort((a, b) => a - b)
                      .map((level) => (
                        <option key={level} value={level}>
                          {t(`groups.talkLevel.${level}`, { defaultValue: `${level}%` })}
                        </option>
                      ))}
                  </select>
                </label>
              </div>
              <div className={styles.memberTools}>
                <button
                  type="button"
                  className={styles.pillButton}
                  disabled={running || member.muted}
                  onClick={() => onPick(key)}
                  title={t('groups.pickSpeaker', { name })}
                  data-testid="group-member-pick"
                >
                  {t('groups.speak')}
                </button>
                <button
                  type="button"
                  className={`${styles.pillButton} ${member.muted ? styles.pillOn : ''}`}
                  aria-pressed={member.muted}
                  disabled={busy !== null}
                  onClick={() =>
                    void run(`mute-${key}`, () =>
                      updateMember({ groupId: group.groupId, characterId: key, muted: !member.muted }),
                    )
                  }
                  data-testid="group-member-mute"
                >
                  {member.muted ? t('groups.unmute') : t('groups.mute')}
                </button>
                <button
                  type="button"
                  className={styles.toolButton}
                  disabled={!canRemove || busy !== null}
                  onClick={() => setRemoving(member)}
                  aria-label={t('groups.removeMember', { name })}
                  title={canRemove ? t('groups.removeMember', { name }) : t('groups.atLeastTwo')}
                  data-testid="group-member-remove"
                >
                  <TrashIcon size={15} />
                </button>
              </div>
            </li>
          );
        })}
      </ul>
      {group.members.length < MAX_MEMBERS && (
        <Button variant="secondary" size="small" onClick={() => setAdding(true)} data-testid="group-add-member">
          <PlusIcon size={16} />
          {t('groups.addMember')}
        </Button>
      )}
      <form
        className={styles.settings}
        onSubmit={(event) => {
          event.preventDefault();
          void saveSettings();
        }}
      >
        <h3 className={styles.panelSubtitle}>{t('groups.settings')}</h3>
        <GroupSettingsFields value={settings} onChange={setSettings} error={settingsError} />
        <Button type="submit" size="small" disabled={!changed || busy !== null} data-testid="group-settings-save">
          {t('chat.save')}
        </Button>
      </form>
      <button
        type="button"
        className={styles.dangerButton}
        onClick={() => setDeleting(true)}
        data-testid="group-delete"
      >
        <TrashIcon size={15} />
        {t('groups.delete')}
      </button>
      <AddMemberDialog
        open={adding}
        excluded={seated}
        onClose={() => setAdding(false)}
        onAdd={async (characterId) => {
          if (await run(`add-${characterId}`, () => addMember(group.groupId, characterId))) setAdding(false);
        }}
      />
      <ConfirmDialog
        open={removing !== null}
        title={t('groups.removeTitle')}
        text={t('groups.removeText', { name: removing?.characterName ?? '' })}
        confirmLabel={t('groups.remove')}
        onClose={() => setRemoving(null)}
        onConfirm={async () => {
          const who = removing;
          if (who && (await run(`remove-${who.characterId}`, () => removeMember(group.groupId, who.characterId))))
            setRemoving(null);
        }}
        testId="remove-member-dialog"
      />
      <ConfirmDialog
        open={deleting}
        title={t('groups.deleteTitle')}
        text={t('groups.deleteText', { name: group.name })}
        confirmLabel={t('chat.delete')}
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          if (await onDelete().catch(() => false)) setDeleting(false);
        }}
        testId="delete-group-dialog"
      />
    </aside>
  );
  if (!sheet) return panel;
  return (
    <>
      <div className={styles.sheetBackdrop} onClick={onClose} aria-hidden="true" />
      {panel}
    </>
  );
}

/** One more member, picked from the user's chats and the catalogue. */
function AddMemberDialog({
  open,
  excluded,
  onClose,
  onAdd,
}: {
  open: boolean;
  excluded: ReadonlySet<string>;
  onClose: () => void;
  onAdd: (characterId: string) => Promise<void>;
}) {
  const { t } = useTranslation();
  const pickable = usePickableCharacters(open);
  return (
    <Modal
      open={open}
      onClose={onClose}
      title={t('groups.addMember')}
      closeLabel={t('common.close')}
      width={600}
      testId="add-member-dialog"
    >
      <div className={styles.dialogBody}>
        <h2 className={styles.dialogTitle}>{t('groups.addMember')}</h2>
        <CharacterPicker
          characters={pickable.characters}
          loading={pickable.loading}
          failed={pickable.failed}
          onRetry={pickable.reload}
          picked={[]}
          full={false}
          excluded={excluded}
          onToggle={(character) => void onAdd(character.characterId)}
        />
      </div>
    </Modal>
  );
}

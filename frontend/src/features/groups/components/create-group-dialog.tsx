import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { Modal } from '@/components/modal';
import { createGroup, MAX_MEMBERS, MIN_MEMBERS, TALK_CAP_DEFAULT } from '@/features/groups/api/groups-api';
import { CharacterPicker } from '@/features/groups/components/character-picker';
import { GroupSettingsFields, type GroupSettings } from '@/features/groups/components/group-settings-fields';
import styles from '@/features/groups/components/groups.module.css';
import { usePickableCharacters } from '@/features/groups/hooks/use-pickable-characters';
import { groupFieldError, type GroupField } from '@/features/groups/lib/field-errors';
import type { Pickable } from '@/features/groups/lib/pickable';
import type { Group } from '@/lib/api-types';

const FRESH: GroupSettings = {
  name: '',
  scenario: '',
  activation: 'natural',
  talkCap: TALK_CAP_DEFAULT,
  allowSelfResponses: false,
};

export interface CreateGroupDialogProps {
  open: boolean;
  onClose: () => void;
  onCreated: (group: Group) => void;
  /** The user would rather import a SillyTavern group chat export. */
  onImportInstead: () => void;
}

/**
 * A new group: 2–6 characters picked (in the order picked, their seating order), a name, an
 * optional scenario and how the group takes turns. Refusals show under the field they name.
 */
export function CreateGroupDialog({ open, onClose, onCreated, onImportInstead }: CreateGroupDialogProps) {
  const { t } = useTranslation();
  const pickable = usePickableCharacters(open);
  const [picked, setPicked] = useState<Pickable[]>([]);
  const [settings, setSettings] = useState<GroupSettings>(FRESH);
  const [error, setError] = useState<{ field: GroupField; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const close = () => {
    setPicked([]);
    setSettings(FRESH);
    setError(null);
    onClose();
  };

  const toggle = (character: Pickable) =>
    setPicked((current) =>
      current.some((c) => c.characterId === character.characterId)
        ? current.filter((c) => c.characterId !== character.characterId)
        : current.length < MAX_MEMBERS
          ? [...current, character]
          : current,
    );

  // Without a name typed, the members' first names make one.
  const suggestedName = picked.map((c) => c.characterName.split(/\s+/)[0]).join(', ');
  const enough = picked.length >= MIN_MEMBERS;

  const create = async () => {
    if (busy || !enough) return;
    setBusy(true);
    setError(null);
    try {
      const envelope = await createGroup({
        name: settings.name.trim() || suggestedName.slice(0, 60),
        ...(settings.scenario.trim() ? { scenario: settings.scenario.trim() } : {}),
        activation: settings.activation,
        allowSelfResponses: settings.allowSelfResponses,
        talkCap: settings.talkCap,
        members: picked.map((c) => ({ characterId: c.characterId })),
      });
      if (envelope.success && envelope.data) {
        const group = envelope.data;
        setPicked([]);
        setSettings(FRESH);
        onCreated(group);
        return;
      }
      const explained = groupFieldError(envelope.code, envelope.msg);
      setError({ field: explained?.field ?? 'other', text: explained ? t(explained.key) : envelope.msg });
    } catch {
      // The connection notification has been shown; the form stays as it is.
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      onClose={close}
      title={t('groups.createTitle')}
      closeLabel={t('common.close')}
      width={640}
      testId="create-group-dialog"
    >
      <form
        className={styles.dialogForm}
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        {/* The fields scroll; the buttons stay in view, on a phone too. */}
        <div className={styles.dialogScroll}>
          <h2 className={styles.dialogTitle}>{t('groups.createTitle')}</h2>
          <p className={styles.muted}>{t('groups.createText', { min: MIN_MEMBERS, max: MAX_MEMBERS })}</p>
          <button
            type="button"
            className={styles.linkButton}
            onClick={() => {
              close();
              onImportInstead();
            }}
            data-testid="group-import-open"
          >
            {t('groups.import.instead')}
          </button>
          <div className={styles.pickedLine} data-testid="group-picked">
            <span className={styles.label}>
              {t('groups.membersCount', { picked: picked.length, max: MAX_MEMBERS })}
            </span>
            <span className={styles.pickedNames}>{picked.map((c) => c.characterName).join(' · ')}</span>
          </div>
          <CharacterPicker
            characters={pickable.characters}
            loading={pickable.loading}
            failed={pickable.failed}
            onRetry={pickable.reload}
            picked={picked.map((c) => c.characterId)}
            full={picked.length >= MAX_MEMBERS}
            onToggle={toggle}
          />
          {error?.field === 'members' || error?.field === 'groups' || error?.field === 'characterId' ? (
            <p className={styles.fieldError} role="alert" data-testid={`group-error-${error.field}`}>
              {error.text}
            </p>
          ) : null}
          <GroupSettingsFields value={settings} onChange={setSettings} error={error} />
          {!settings.name.trim() && suggestedName && (
            <p className={styles.hint}>{t('groups.nameSuggested', { name: suggestedName })}</p>
          )}
        </div>
        <div className={`${styles.dialogActions} ${styles.stickyActions}`}>
          <Button variant="secondary" size="small" onClick={close} disabled={busy}>
            {t('chat.cancel')}
          </Button>
          <Button type="submit" size="small" disabled={busy || !enough} data-testid="group-create-submit">
            {t('groups.create')}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

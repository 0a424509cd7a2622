import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import { Modal } from '@/components/modal';
import {
  IMPORT_MAX_BYTES,
  importGroupChat,
  MAX_MEMBERS,
  MIN_MEMBERS,
  TALK_CAP_DEFAULT,
} from '@/features/groups/api/groups-api';
import { CharacterPicker } from '@/features/groups/components/character-picker';
import { GroupSettingsFields, type GroupSettings } from '@/features/groups/components/group-settings-fields';
import styles from '@/features/groups/components/groups.module.css';
import { usePickableCharacters } from '@/features/groups/hooks/use-pickable-characters';
import { groupFieldError, type GroupField } from '@/features/groups/lib/field-errors';
import {
  characterForSpeaker,
  importProblem,
  membersForSpeakers,
  nameFromFileName,
  outlineExport,
  type ExportOutline,
} from '@/features/groups/lib/import-chat';
import type { Pickable } from '@/features/groups/lib/pickable';
import type { Group } from '@/lib/api-types';

const FRESH: GroupSettings = {
  name: '',
  scenario: '',
  activation: 'natural',
  talkCap: TALK_CAP_DEFAULT,
  allowSelfResponses: false,
};

/** The export chosen: its file name, its text and what it holds. */
interface ChosenExport {
  fileName: string;
  text: string;
  outline: ExportOutline;
}

type ImportError = { field: GroupField | 'chat'; text: string };

export interface ImportGroupDialogProps {
  open: boolean;
  onClose: () => void;
  onImported: (group: Group) => void;
}

/**
 * A SillyTavern group chat export (JSONL) imported as a new group with its history
 * (`group/importChat`): the file is read here to name its speakers, the characters they
 * are preselected by name (the user changes them as in "New group"), the name comes from
 * the file's. The server reads the file again: its refusals name the line or the speaker.
 */
export function ImportGroupDialog({ open, onClose, onImported }: ImportGroupDialogProps) {
  const { t } = useTranslation();
  const pickable = usePickableCharacters(open);
  const fileInput = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<ChosenExport | null>(null);
  // Until the user changes the members, they are the characters the speakers name.
  const [pickedByHand, setPickedByHand] = useState<Pickable[] | null>(null);
  const [settings, setSettings] = useState<GroupSettings>(FRESH);
  const [error, setError] = useState<ImportError | null>(null);
  const [busy, setBusy] = useState(false);

  const picked =
    pickedByHand ?? (chosen ? membersForSpeakers(chosen.outline.speakers, pickable.characters, MAX_MEMBERS) : []);

  const reset = () => {
    setChosen(null);
    setPickedByHand(null);
    setSettings(FRESH);
    setError(null);
  };
  const close = () => {
    reset();
    onClose();
  };

  const toggle = (character: Pickable) => {
    const on = picked.some((c) => c.characterId === character.characterId);
    if (!on && picked.length >= MAX_MEMBERS) return;
    setPickedByHand(on ? picked.filter((c) => c.characterId !== character.characterId) : [...picked, character]);
  };

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    if (file.size > IMPORT_MAX_BYTES) {
      setChosen(null);
      setError({ field: 'chat', text: t('groups.import.errors.tooLarge') });
      return;
    }
    const text = await file.text();
    const outline = outlineExport(text);
    setChosen({ fileName: file.name, text, outline });
    setPickedByHand(null);
    setSettings((current) => ({ ...current, name: nameFromFileName(file.name) }));
    if (outline.badLine !== null)
      setError({ field: 'chat', text: t('groups.import.errors.line', { line: outline.badLine }) });
    else if (outline.messages === 0) setError({ field: 'chat', text: t('groups.import.errors.empty') });
  };

  const readable = chosen !== null && chosen.outline.badLine === null && chosen.outline.messages > 0;
  const enough = picked.length >= MIN_MEMBERS;

  const submit = async () => {
    if (busy || !readable || !enough || !chosen) return;
    setBusy(true);
    setError(null);
    try {
      const envelope = await importGroupChat({
        chat: chosen.text,
        name: settings.name.trim() || nameFromFileName(chosen.fileName) || chosen.outline.speakers.join(', '),
        ...(settings.scenario.trim() ? { scenario: settings.scenario.trim() } : {}),
        activation: settings.activation,
        allowSelfResponses: settings.allowSelfResponses,
        talkCap: settings.talkCap,
        members: picked.map((c) => ({ characterId: c.characterId })),
      });
      if (envelope.success && envelope.data) {
        reset();
        onImported(envelope.data);
        return;
      }
      const problem = importProblem(envelope.msg);
      if (problem) {
        setError({ field: 'chat', text: t(problem.key, problem.values) });
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

  const memberError = error?.field === 'members' || error?.field === 'groups' || error?.field === 'characterId';
  const settingsError =
    error && error.field !== 'chat' && !memberError ? { field: error.field, text: error.text } : null;

  return (
    <Modal
      open={open}
      onClose={close}
      title={t('groups.import.title')}
      closeLabel={t('common.close')}
      width={640}
      testId="import-group-dialog"
    >
      <form
        className={styles.dialogForm}
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <div className={styles.dialogScroll}>
          <h2 className={styles.dialogTitle}>{t('groups.import.title')}</h2>
          <p className={styles.muted}>{t('groups.import.text')}</p>
          <div className={styles.fileLine}>
            <input
              ref={fileInput}
              type="file"
              accept=".jsonl,.json,.txt,application/jsonl,application/json,text/plain"
              className={styles.hiddenInput}
              onChange={(event) => {
                const file = event.target.files?.[0];
                event.target.value = '';
                void onFile(file);
              }}
              data-testid="group-import-file"
            />
            <Button variant="secondary" size="small" onClick={() => fileInput.current?.click()} disabled={busy}>
              {chosen ? t('groups.import.otherFile') : t('groups.import.chooseFile')}
            </Button>
            <span className={styles.fileName} data-testid="group-import-file-name">
              {chosen?.fileName ?? t('groups.import.noFile')}
            </span>
          </div>
          {error?.field === 'chat' && (
            <p className={styles.fieldError} role="alert" data-testid="group-import-error">
              {error.text}
            </p>
          )}
          {readable && (
            <>
              <p className={styles.muted} data-testid="group-import-summary">
                {t('groups.import.summary', { count: chosen.outline.messages })}
              </p>
              <ul className={styles.speakers}>
                {chosen.outline.speakers.map((speaker) => {
                  const member = characterForSpeaker(speaker, picked);
                  return (
                    <li
                      key={speaker}
                      className={member ? styles.speakerMatched : styles.speakerMissing}
                      data-testid="group-import-speaker"
                      data-matched={member ? member.characterId : ''}
                    >
                      {member
                        ? t('groups.import.speakerIs', { speaker, name: member.characterName })
                        : t('groups.import.speakerMissing', { speaker })}
                    </li>
                  );
                })}
              </ul>
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
              {memberError && (
                <p className={styles.fieldError} role="alert" data-testid={`group-error-${error.field}`}>
                  {error.text}
                </p>
              )}
              <GroupSettingsFields value={settings} onChange={setSettings} error={settingsError} />
            </>
          )}
        </div>
        <div className={`${styles.dialogActions} ${styles.stickyActions}`}>
          <Button variant="secondary" size="small" onClick={close} disabled={busy}>
            {t('chat.cancel')}
          </Button>
          <Button type="submit" size="small" disabled={busy || !readable || !enough} data-testid="group-import-submit">
            {busy ? t('groups.import.importing') : t('groups.import.submit')}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

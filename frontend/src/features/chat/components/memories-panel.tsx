import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CheckIcon, CloseIcon, PencilIcon, PlusIcon, TrashIcon } from '@/components/icons';
import { Spinner } from '@/components/splash';
import { MEMORY_MAX_CHARS } from '@/features/chat/api/chat-api';
import { MemoryIcon, PinIcon } from '@/features/chat/components/chat-icons';
import styles from '@/features/chat/components/chat.module.css';
import { EditForm } from '@/features/chat/components/edit-form';
import type { MemoriesState, MemoryResult } from '@/features/chat/hooks/use-memories';
import { chatErrorText } from '@/features/chat/lib/error-text';
import type { Memory } from '@/lib/api-types';
import { notify } from '@/lib/notifications';

function useResultText() {
  const { t } = useTranslation();
  return (result: MemoryResult) => (result.ok ? null : chatErrorText(t, result.code, result.msg));
}

function MemoryItem({ memory, memories }: { memory: Memory; memories: MemoriesState }) {
  const { t } = useTranslation();
  const explain = useResultText();
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const save = async () => {
    const content = (draft ?? '').trim();
    if (!content || busy) return;
    setBusy(true);
    try {
      const result = await memories.update(memory.memoryId, content);
      setError(explain(result));
      if (result.ok) setDraft(null);
    } catch {
      // The connection notification has been shown.
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    setBusy(true);
    try {
      await memories.remove(memory.memoryId);
    } catch {
      // The connection notification has been shown.
    } finally {
      setBusy(false);
    }
  };

  const togglePin = async () => {
    setBusy(true);
    try {
      setError(explain(await memories.pin(memory.memoryId, !memory.pinned)));
    } catch {
      // The connection notification has been shown.
    } finally {
      setBusy(false);
    }
  };
  const pinLabel = memory.pinned ? t('chat.unpinMemory') : t('chat.pinMemory');

  return (
    <li
      className={`${styles.memory} ${memory.pinned ? styles.memoryPinned : ''}`}
      data-testid="memory-item"
      data-origin={memory.origin}
      data-pinned={memory.pinned}
    >
      {draft === null ? (
        <>
          <p className={styles.memoryText}>{memory.content}</p>
          <div className={styles.memoryFoot}>
            <span className={styles.memoryOrigin}>
              {memory.origin === 'user' ? t('chat.memoryByYou') : t('chat.memoryFromChat')}
              {memory.pinned && ` · ${t('chat.memoryPinned')}`}
            </span>
            <span className={styles.memoryTools}>
              <button
                type="button"
                className={`${styles.toolButton} ${memory.pinned ? styles.toolOn : ''}`}
                onClick={() => void togglePin()}
                disabled={busy}
                aria-pressed={memory.pinned}
                aria-label={pinLabel}
                title={pinLabel}
                data-testid="memory-pin"
              >
                <PinIcon size={15} filled={memory.pinned} />
              </button>
              <button
                type="button"
                className={styles.toolButton}
                onClick={() => setDraft(memory.content)}
                aria-label={t('chat.editMemory')}
                title={t('chat.editMemory')}
              >
                <PencilIcon size={15} />
              </button>
              <button
                type="button"
                className={styles.toolButton}
                onClick={() => void remove()}
                disabled={busy}
                aria-label={t('chat.deleteMemory')}
                title={t('chat.deleteMemory')}
              >
                <TrashIcon size={15} />
              </button>
            </span>
          </div>
          {error && (
            <p className={styles.fieldError} role="alert">
              {error}
            </p>
          )}
        </>
      ) : (
        <EditForm
          className={styles.memoryEdit}
          value={draft}
          maxLength={MEMORY_MAX_CHARS}
          label={t('chat.editMemory')}
          error={error}
          busy={busy}
          onChange={setDraft}
          onCancel={() => setDraft(null)}
          onSubmit={() => void save()}
          saveIcon={<CheckIcon size={14} />}
        />
      )}
    </li>
  );
}

export interface MemoriesPanelProps {
  memories: MemoriesState;
  characterName: string;
  /** Phones show the panel as a sheet over the chat. */
  sheet: boolean;
  onClose: () => void;
}

/**
 * What the character remembers of the user: the "Save memories" action (the model notes
 * facts from the recent chat; saving shows until `memorySaved`), a field to add one, and
 * each memory with edit and delete.
 */
export function MemoriesPanel({ memories, characterName, sheet, onClose }: MemoriesPanelProps) {
  const { t } = useTranslation();
  const explain = useResultText();
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const content = draft.trim();

  // A sheet closes with Escape, like the app's other overlays.
  useEffect(() => {
    if (!sheet) return;
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [sheet, onClose]);

  const add = async () => {
    if (!content || adding) return;
    setAdding(true);
    try {
      const result = await memories.add(content);
      setError(explain(result));
      if (result.ok) setDraft('');
    } catch {
      // The connection notification has been shown.
    } finally {
      setAdding(false);
    }
  };

  const panel = (
    <aside
      className={`${styles.memories} ${sheet ? styles.memoriesSheet : ''}`}
      aria-label={t('chat.memories')}
      data-testid="memories-panel"
      role={sheet ? 'dialog' : undefined}
      aria-modal={sheet ? true : undefined}
    >
      {sheet && <span className={styles.sheetHandle} aria-hidden="true" />}
      <div className={styles.memoriesHead}>
        <span className={styles.memoriesIcon}>
          <MemoryIcon size={20} />
        </span>
        <h2 className={styles.memoriesTitle}>{t('chat.memoriesTitle', { name: characterName })}</h2>
        <button
          type="button"
          className={styles.toolButton}
          onClick={onClose}
          aria-label={t('chat.closeMemories')}
          title={t('chat.closeMemories')}
        >
          <CloseIcon size={18} />
        </button>
      </div>
      <p className={styles.memoriesText}>{t('chat.memoriesText', { name: characterName })}</p>
      <button
        type="button"
        className={styles.saveMemories}
        onClick={() => {
          if (!memories.save()) notify.warning(t('chat.offline'));
        }}
        disabled={memories.saving}
        aria-busy={memories.saving}
        data-testid="save-memories"
      >
        {memories.saving ? <span className={styles.buttonSpinner} aria-hidden="true" /> : <MemoryIcon size={17} />}
        {memories.saving
          ? memories.saveType === 'save'
            ? t('chat.savingMemories')
            : t('chat.autoSavingMemories')
          : t('chat.saveMemories')}
      </button>
      <form
        className={styles.memoryAdd}
        onSubmit={(event) => {
          event.preventDefault();
          void add();
        }}
      >
        <input
          className={styles.memoryInput}
          value={draft}
          maxLength={MEMORY_MAX_CHARS}
          placeholder={t('chat.addMemoryPlaceholder')}
          aria-label={t('chat.addMemory')}
          onChange={(event) => setDraft(event.target.value)}
          data-testid="memory-input"
        />
        <button
          type="submit"
          className={styles.addButton}
          disabled={!content || adding}
          aria-label={t('chat.addMemory')}
          title={t('chat.addMemory')}
          data-testid="memory-add"
        >
          <PlusIcon size={18} />
        </button>
      </form>
      {error && (
        <p className={styles.fieldError} role="alert">
          {error}
        </p>
      )}
      <div className={styles.memoryScroll}>
        {memories.status === 'loading' ? (
          <Spinner label={t('common.loading')} />
        ) : memories.memories.length === 0 ? (
          <p className={styles.memoriesEmpty}>
            {memories.status === 'failed' ? t('chat.memoriesFailed') : t('chat.noMemories')}
          </p>
        ) : (
          <ul className={styles.memoryList} data-testid="memory-list">
            {memories.memories.map((memory) => (
              <MemoryItem key={memory.memoryId} memory={memory} memories={memories} />
            ))}
          </ul>
        )}
      </div>
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

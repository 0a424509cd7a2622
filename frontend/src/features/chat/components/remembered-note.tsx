import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CheckIcon, PencilIcon, TrashIcon } from '@/components/icons';
import { MEMORY_MAX_CHARS } from '@/features/chat/api/chat-api';
import { MemoryIcon } from '@/features/chat/components/chat-icons';
import styles from '@/features/chat/components/chat.module.css';
import { EditForm } from '@/features/chat/components/edit-form';
import { chatErrorText } from '@/features/chat/lib/error-text';
import type { Recalled, RecalledItem } from '@/lib/api-types';
import type { MemoryResult } from '@/features/chat/hooks/use-memories';

/** What the note needs to fix a wrong memory where it shows (the memories panel's own calls). */
export interface MemoryFixes {
  update: (memoryId: string, content: string) => Promise<MemoryResult>;
  remove: (memoryId: string) => Promise<boolean>;
}

function RecalledMemory({ item, fixes }: { item: RecalledItem; fixes: MemoryFixes | undefined }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch {
      // The connection notification has been shown.
    } finally {
      setBusy(false);
    }
  };
  const save = () =>
    run(async () => {
      const content = (draft ?? '').trim();
      if (!content || !fixes) return;
      const result = await fixes.update(item.id, content);
      if (result.ok) setDraft(null);
      else setError(chatErrorText(t, result.code, result.msg));
    });

  if (draft !== null) {
    return (
      <li>
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
      </li>
    );
  }
  return (
    <li className={styles.rememberedItem} data-testid="remembered-memory">
      <span>{item.content}</span>
      {fixes && (
        <span className={styles.memoryTools}>
          <button
            type="button"
            className={styles.toolButton}
            onClick={() => setDraft(item.content)}
            aria-label={t('chat.editMemory')}
            title={t('chat.editMemory')}
          >
            <PencilIcon size={14} />
          </button>
          <button
            type="button"
            className={styles.toolButton}
            disabled={busy}
            onClick={() => void run(async () => void (await fixes.remove(item.id)))}
            aria-label={t('chat.deleteMemory')}
            title={t('chat.deleteMemory')}
          >
            <TrashIcon size={14} />
          </button>
        </span>
      )}
    </li>
  );
}

/**
 * A small note under a reply that recalled memories or earlier messages ("Remembered 2
 * things"); opened, it lists them, and a wrong memory can be edited or deleted right there.
 */
export function RememberedNote({ recalled, fixes }: { recalled: Recalled; fixes?: MemoryFixes }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const count = recalled.memories.length + recalled.messages.length;
  if (count === 0) return null;
  return (
    <div className={styles.remembered} data-testid="remembered-note">
      <button
        type="button"
        className={styles.rememberedToggle}
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen(!open)}
      >
        <MemoryIcon size={13} />
        {t('chat.remembered', { count })}
      </button>
      {open && (
        <div className={styles.rememberedBody} id={bodyId}>
          {recalled.memories.length > 0 && (
            <>
              <p className={styles.rememberedHeading}>{t('chat.rememberedMemories')}</p>
              <ul className={styles.rememberedList}>
                {recalled.memories.map((item) => (
                  <RecalledMemory key={item.id} item={item} fixes={fixes} />
                ))}
              </ul>
            </>
          )}
          {recalled.messages.length > 0 && (
            <>
              <p className={styles.rememberedHeading}>{t('chat.rememberedMessages')}</p>
              <ul className={styles.rememberedList}>
                {recalled.messages.map((item) => (
                  <li
                    key={item.id}
                    className={`${styles.rememberedItem} ${styles.rememberedQuote}`}
                    data-testid="remembered-message"
                  >
                    “{item.content}”
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </div>
  );
}

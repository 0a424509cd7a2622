import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { gettingUserAtom, interestedGenderAtom, isLoggedInAtom, showLoginTipAtom } from '@/app/store';
import { Button, buttonClassName } from '@/components/button';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { LocalizedLink } from '@/components/localized-link';
import { Spinner } from '@/components/splash';
import {
  CARD_MAX_BYTES,
  deleteCharacter,
  duplicateCharacter,
  exportCard,
  getAllMyCharacters,
  importCard,
  setVisibility,
  type CardFormat,
  type MyCharacter,
} from '@/features/create/api/create-api';
import { AgeDialog } from '@/features/create/components/age-dialog';
import styles from '@/features/create/components/create.module.css';
import { MyCharacterCard } from '@/features/create/components/my-character-card';
import { downloadBase64, fileToBase64 } from '@/features/create/lib/files';
import { useLoad } from '@/hooks/use-load';
import { useLocalizedPath } from '@/hooks/use-localized-path';
import { usePageMeta } from '@/hooks/use-page-meta';
import { ApiCode } from '@/lib/api-types';
import { notify } from '@/lib/notifications';
import { ROUTES } from '@/lib/routes';
import { trackPageView } from '@/lib/telemetry';

type Load = 'loading' | 'ready' | 'failed';

/** A card waiting for the age its file does not give. */
interface PendingImport {
  fileName: string;
  data: string;
}

/** A refusal's `msg` names its field first (`characterAge: the card gives no age`). */
const asksForAge = (msg: string) => /^\s*characterAge\s*:/.test(msg);

/**
 * `/myai` (spec section 2): the user's own characters as cards with their status, and what
 * can be done with each (chat, edit, duplicate, visibility, export, delete), plus importing a
 * character card. Signed-out visitors get the login prompt.
 */
export default function MyAiPage() {
  const { t } = useTranslation('create');
  const { t: tApp } = useTranslation();
  const localize = useLocalizedPath();
  const [params] = useSearchParams();
  const highlight = params.get('created');
  const loggedIn = useAtomValue(isLoggedInAtom);
  const gettingUser = useAtomValue(gettingUserAtom);
  const gender = useAtomValue(interestedGenderAtom);
  const openLogin = useSetAtom(showLoginTipAtom);
  // The list stays shown while it is asked for again (a retry after a failure).
  const mine = useLoad(
    async () => {
      const envelope = await getAllMyCharacters();
      if (!envelope.success || !Array.isArray(envelope.data)) throw new Error('getAllMyCharacters failed');
      return envelope.data;
    },
    [],
    { enabled: loggedIn, keepData: true },
  );
  const characters = mine.data ?? [];
  const load: Load = mine.loading ? 'loading' : mine.error !== null ? 'failed' : mine.data ? 'ready' : 'loading';
  const { reload, setData } = mine;
  const setCharacters = (update: (list: MyCharacter[]) => MyCharacter[]) => setData((list) => update(list ?? []));
  const [deleting, setDeleting] = useState<MyCharacter | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const [askingAge, setAskingAge] = useState<PendingImport | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  usePageMeta({
    title: tApp('seo.myAi.title'),
    description: tApp('seo.myAi.description'),
    keywords: '',
    noIndex: true,
    breadcrumbs: [
      { name: tApp('seo.breadcrumbHome'), path: localize(ROUTES.home) },
      { name: tApp('nav.myAi'), path: localize(ROUTES.myAi) },
    ],
  });
  useEffect(() => trackPageView('myAi'), []);

  // Signed out: the login prompt, once the user fetch has said so.
  useEffect(() => {
    if (!gettingUser && !loggedIn) openLogin(true);
  }, [gettingUser, loggedIn, openLogin]);

  const replace = (updated: MyCharacter) =>
    setCharacters((list) =>
      list.map((item) => (item.character.characterId === updated.character.characterId ? updated : item)),
    );

  const run = async (id: string, action: () => Promise<void>) => {
    setBusyId(id);
    try {
      await action();
    } catch {
      // The connection notification has been shown.
    } finally {
      setBusyId(null);
    }
  };

  const duplicate = (item: MyCharacter) =>
    run(item.character.characterId, async () => {
      const envelope = await duplicateCharacter(item.character.characterId);
      if (envelope.success && envelope.data) {
        setCharacters((list) => [envelope.data, ...list]);
        notify.success(t('myAi.duplicated', { name: envelope.data.character.characterName }));
      } else if (envelope.code === ApiCode.rateLimited) notify.error(t('errors.tooMany'));
      else notify.error(envelope.msg || tApp('CommonErrorMsg'));
    });

  const toggleVisibility = (item: MyCharacter) =>
    run(item.character.characterId, async () => {
      const goingPublic = item.status === 'private' || item.status === 'rejected';
      const envelope = await setVisibility(item.character.characterId, goingPublic ? 'public' : 'private');
      if (envelope.success && envelope.data) {
        replace(envelope.data);
        notify.success(t(goingPublic ? 'myAi.sentToReview' : 'myAi.madePrivate'));
      }
    });

  const download = (item: MyCharacter, format: CardFormat) =>
    run(item.character.characterId, async () => {
      const envelope = await exportCard(item.character.characterId, format);
      if (envelope.success && envelope.data)
        downloadBase64(envelope.data.fileName, envelope.data.mime, envelope.data.data);
      else notify.error(envelope.msg || tApp('CommonErrorMsg'));
    });

  const remove = async () => {
    if (!deleting) return;
    const id = deleting.character.characterId;
    try {
      const envelope = await deleteCharacter(id);
      if (envelope.success) {
        setCharacters((list) => list.filter((item) => item.character.characterId !== id));
        notify.success(t('myAi.deleted', { name: deleting.character.characterName }));
      }
    } catch {
      // The connection notification has been shown.
    }
    setDeleting(null);
  };

  /** Sends a card; true when it is done with (imported, or refused with a message shown). */
  const sendCard = async (card: PendingImport, age?: number): Promise<boolean> => {
    setImporting(true);
    try {
      const envelope = await importCard({ ...card, gender, ...(age !== undefined ? { age } : {}) });
      if (envelope.success && envelope.data) {
        setCharacters((list) => [
          envelope.data,
          ...list.filter((item) => item.character.characterId !== envelope.data.character.characterId),
        ]);
        notify.success(t('myAi.imported', { name: envelope.data.character.characterName }));
        return true;
      }
      if (envelope.code === ApiCode.paramError && asksForAge(envelope.msg) && age === undefined) {
        setAskingAge(card);
        return false;
      }
      if (envelope.code === ApiCode.inputContentIllegal) notify.error(t('errors.notAllowed', { reason: envelope.msg }));
      else if (envelope.code === ApiCode.rateLimited) notify.error(t('errors.tooMany'));
      else notify.error(t('myAi.importFailed', { reason: envelope.msg }));
      return true;
    } catch {
      return true;
    } finally {
      setImporting(false);
    }
  };

  const onFile = async (file: File | undefined) => {
    if (fileInput.current) fileInput.current.value = '';
    if (!file) return;
    if (file.size > CARD_MAX_BYTES) {
      notify.error(t('myAi.importTooBig'));
      return;
    }
    await sendCard({ fileName: file.name, data: await fileToBase64(file) });
  };

  const importButton = (
    <>
      <input
        ref={fileInput}
        type="file"
        accept=".png,.json,.charx"
        className={styles.hiddenInput}
        onChange={(event) => void onFile(event.target.files?.[0])}
        data-testid="import-input"
      />
      <Button
        variant="secondary"
        onClick={() => fileInput.current?.click()}
        disabled={importing}
        data-testid="import-button"
      >
        {importing ? t('myAi.importing') : t('myAi.import')}
      </Button>
    </>
  );

  let body;
  if (!loggedIn) {
    body = gettingUser ? (
      <Spinner label={t('loading')} />
    ) : (
      <div className={styles.signedOut} data-testid="my-ai-signed-out">
        <p>{t('myAi.signedOut')}</p>
        <Button onClick={() => openLogin(true)} data-testid="my-ai-sign-in">
          {t('myAi.signIn')}
        </Button>
      </div>
    );
  } else if (load === 'loading' && characters.length === 0) {
    body = <Spinner label={t('loading')} />;
  } else if (load === 'failed') {
    body = (
      <div className={styles.signedOut}>
        <p className={styles.fieldError}>{t('myAi.loadFailed')}</p>
        <Button variant="secondary" size="small" onClick={reload}>
          {t('retry')}
        </Button>
      </div>
    );
  } else if (characters.length === 0) {
    body = (
      <div className={styles.empty} data-testid="my-ai-empty">
        <p>{t('myAi.empty')}</p>
        <LocalizedLink to={ROUTES.createCharacter} className={buttonClassName()} data-testid="my-ai-create">
          {t('myAi.create')}
        </LocalizedLink>
      </div>
    );
  } else {
    body = (
      <ul className={styles.grid} data-testid="my-ai-grid" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
        {characters.map((item) => (
          <MyCharacterCard
            key={item.character.characterId}
            item={item}
            busy={busyId === item.character.characterId}
            highlight={item.character.characterId === highlight}
            onDuplicate={() => void duplicate(item)}
            onToggleVisibility={() => void toggleVisibility(item)}
            onExport={(format) => void download(item, format)}
            onDelete={() => setDeleting(item)}
          />
        ))}
      </ul>
    );
  }

  return (
    <div className={styles.page} data-testid="my-ai-page">
      <div className={styles.headRow}>
        <header>
          <h1 className={styles.heading}>{t('myAi.heading')}</h1>
          <p className={styles.intro}>{t('myAi.intro')}</p>
        </header>
        {loggedIn && (
          <div className={styles.headActions}>
            {importButton}
            <LocalizedLink to={ROUTES.createCharacter} className={buttonClassName()} data-testid="my-ai-new">
              {t('myAi.create')}
            </LocalizedLink>
          </div>
        )}
      </div>
      {body}
      <ConfirmDialog
        open={deleting !== null}
        title={t('myAi.deleteTitle', { name: deleting?.character.characterName ?? '' })}
        text={t('myAi.deleteText')}
        confirmLabel={t('myAi.actions.delete')}
        onConfirm={remove}
        onClose={() => setDeleting(null)}
        testId="delete-character-dialog"
      />
      <AgeDialog
        open={askingAge !== null}
        busy={importing}
        onClose={() => setAskingAge(null)}
        onSubmit={async (age) => {
          if (!askingAge) return;
          const card = askingAge;
          setAskingAge(null);
          await sendCard(card, age);
        }}
      />
    </div>
  );
}

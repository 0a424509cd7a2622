import { useAtomValue } from 'jotai';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { globalWebConfigAtom, userInfoAtom } from '@/app/store';
import { Button } from '@/components/button';
import { CloseIcon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { NeedPayCard } from '@/components/need-pay-offer';
import styles from '@/features/chat/components/chat.module.css';
import { ApiCode, type MessageImage as ChatImage } from '@/lib/api-types';
import { imageErrorKey } from '@/lib/image-errors';
import type { Job, Tile } from '@/lib/image-jobs';
import { dispatchJobs } from '@/lib/image-jobs-store';
import { PROMPT_MAX_CHARS, requestPicture } from '@/lib/images-api';
import { mediaUrl } from '@/lib/media-url';
import { displayCoins } from '@/lib/site';

export interface PictureDialogProps {
  open: boolean;
  characterId: string;
  characterName: string;
  onClose: () => void;
}

/**
 * Asking the character for a picture (`chat/requestPicture`): an optional wish, the cost
 * (`genPictureCoin`) and the balance; too few tokens shows the buy/upgrade offer.
 */
export function PictureDialog({ open, characterId, characterName, onClose }: PictureDialogProps) {
  const { t } = useTranslation('images');
  const { t: tApp } = useTranslation();
  const user = useAtomValue(userInfoAtom);
  const cost = useAtomValue(globalWebConfigAtom).defaultEnergy.genPictureCoin;
  const [wish, setWish] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [needPay, setNeedPay] = useState(false);

  const close = () => {
    setError(null);
    setNeedPay(false);
    onClose();
  };

  const ask = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    setNeedPay(false);
    try {
      const envelope = await requestPicture(characterId, wish.trim() || undefined);
      if (envelope.success && envelope.data) {
        dispatchJobs({
          type: 'jobStarted',
          jobId: envelope.data.jobId,
          imageIds: envelope.data.imageIds,
          origin: { chat: characterId },
        });
        setWish('');
        close();
      } else if (envelope.code === ApiCode.needPay) setNeedPay(true);
      else setError(t(imageErrorKey(envelope.code)));
    } catch {
      // The connection notification has been shown.
    } finally {
      setBusy(false);
    }
  };

  const title = t('chatPicture.title', { name: characterName });
  return (
    <Modal
      open={open}
      onClose={close}
      title={title}
      closeLabel={tApp('common.close')}
      width={440}
      testId="picture-dialog"
    >
      <form
        className={styles.pictureDialog}
        onSubmit={(event) => {
          event.preventDefault();
          void ask();
        }}
      >
        <h2 className={styles.confirmTitle}>{title}</h2>
        <label className={styles.pictureDialog}>
          <span>{t('chatPicture.wish')}</span>
          <textarea
            value={wish}
            maxLength={PROMPT_MAX_CHARS}
            placeholder={t('chatPicture.wishPlaceholder')}
            onChange={(event) => setWish(event.target.value)}
            data-testid="picture-wish"
          />
        </label>
        <div className={styles.pictureDialogMeta}>
          <span data-testid="picture-cost">{t('chatPicture.cost', { tokens: displayCoins(cost) })}</span>
          {user && <span>{t('chatPicture.balance', { tokens: displayCoins(user.coin) })}</span>}
          <span>{t('generate.promptCount', { length: wish.length, max: PROMPT_MAX_CHARS })}</span>
        </div>
        {error && (
          <p className={styles.voiceError} role="alert" data-testid="picture-error">
            {error}
          </p>
        )}
        {needPay && <NeedPayCard />}
        <Button type="submit" block disabled={busy} data-testid="picture-ask">
          {t('chatPicture.ask')}
        </Button>
      </form>
    </Modal>
  );
}

/** A picture in a character's message: opens the full view. */
export function ChatPicture({ image, alt, onOpen }: { image: ChatImage; alt: string; onOpen: () => void }) {
  return (
    <button
      type="button"
      className={styles.picture}
      onClick={onOpen}
      data-testid="chat-picture"
      data-image-id={image.imageId}
    >
      <img src={mediaUrl(image.url)} width={image.width} height={image.height} alt={alt} loading="lazy" />
    </button>
  );
}

function PendingTile({ tile, name }: { tile: Tile; name: string }) {
  const { t } = useTranslation('images');
  if (tile.status === 'failed') {
    return (
      <div className={styles.pictureFailed} role="alert" data-testid="picture-failed" data-reason={tile.reason}>
        <span>
          {t(`job.reason.${tile.reason}`)}
          {tile.refunded > 0 && ` · ${t('job.refunded', { tokens: displayCoins(tile.refunded) })}`}
        </span>
      </div>
    );
  }
  if (tile.status === 'done') {
    return (
      <div className={styles.picture} data-testid="picture-arrived">
        <img
          src={mediaUrl(tile.image.url)}
          width={tile.image.width}
          height={tile.image.height}
          alt={t('chatPicture.alt', { name })}
        />
      </div>
    );
  }
  const percent = tile.status === 'running' ? Math.round(tile.progress * 100) : null;
  return (
    <div className={styles.picturePending} role="status" data-testid="picture-pending">
      <span className={styles.buttonSpinner} aria-hidden="true" />
      <span>{t('chatPicture.onItsWay', { name })}</span>
      {percent !== null && <span>{percent}%</span>}
    </div>
  );
}

/**
 * The pictures asked for in this conversation that are not messages yet: on their way, just
 * arrived (until the conversation holds their message), or failed and refunded.
 */
export function PendingPictures({
  jobs,
  heldImageIds,
  name,
  photo,
}: {
  jobs: Job[];
  heldImageIds: ReadonlySet<string>;
  name: string;
  photo: string;
}) {
  const { t } = useTranslation();
  const rows = jobs.flatMap((job) =>
    job.tiles.filter((tile) => !heldImageIds.has(tile.imageId)).map((tile) => ({ job, tile })),
  );
  return (
    <>
      {rows.map(({ job, tile }) => (
        <li key={tile.imageId} className={`${styles.row} ${styles.theirs}`} data-testid="picture-row">
          <span className={styles.avatar} aria-hidden="true">
            {photo ? <img src={photo} alt="" /> : name.slice(0, 1)}
          </span>
          <div className={styles.bubbleColumn}>
            <PendingTile tile={tile} name={name} />
            {tile.status === 'failed' && (
              <button
                type="button"
                className={styles.toolButton}
                onClick={() => dispatchJobs({ type: 'jobDismissed', jobId: job.jobId })}
                aria-label={t('chat.dismiss')}
              >
                <CloseIcon size={14} />
              </button>
            )}
          </div>
        </li>
      ))}
    </>
  );
}

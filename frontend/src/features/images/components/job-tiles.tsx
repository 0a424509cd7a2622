import { useTranslation } from 'react-i18next';
import { Button } from '@/components/button';
import styles from '@/features/images/components/images.module.css';
import type { GalleryImage } from '@/lib/api-types';
import { isEnded, jobEnded, jobSummary, type Job, type Tile } from '@/lib/image-jobs';
import { mediaUrl } from '@/lib/media-url';
import { displayCoins } from '@/lib/site';

/** One image of a job: waiting, being drawn, done (opens the full view) or failed (refunded). */
export function JobTile({ tile, onOpen }: { tile: Tile; onOpen: (image: GalleryImage) => void }) {
  const { t } = useTranslation('images');
  switch (tile.status) {
    case 'queued':
      return (
        <div
          className={styles.tile}
          data-testid="job-tile"
          data-status="queued"
          data-image-id={tile.imageId}
          role="status"
        >
          <span className={styles.pulse} aria-hidden="true" />
          <span>{tile.position ? t('job.queuedAhead', { ahead: tile.position }) : t('job.queued')}</span>
        </div>
      );
    case 'running': {
      const percent = Math.round(tile.progress * 100);
      return (
        <div
          className={styles.tile}
          data-testid="job-tile"
          data-status="running"
          data-image-id={tile.imageId}
          role="status"
        >
          <span
            className={styles.progress}
            role="progressbar"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent}
          >
            <span style={{ width: `${percent}%` }} />
          </span>
          <span>{t('job.drawing', { percent })}</span>
        </div>
      );
    }
    case 'done':
      return (
        <div className={styles.tile} data-testid="job-tile" data-status="done" data-image-id={tile.imageId}>
          <img
            src={mediaUrl(tile.image.url)}
            width={tile.image.width}
            height={tile.image.height}
            alt={tile.image.prompt}
            loading="lazy"
          />
          <button
            type="button"
            className={styles.tileButton}
            onClick={() => onOpen(tile.image)}
            aria-label={t('gallery.open')}
          />
          {tile.image.illustration && <span className={styles.badge}>{t('gallery.illustration')}</span>}
        </div>
      );
    case 'failed':
      return (
        <div
          className={`${styles.tile} ${styles.tileFailed}`}
          data-testid="job-tile"
          data-status="failed"
          data-reason={tile.reason}
          data-image-id={tile.imageId}
          role="alert"
        >
          <strong>{t(`job.reason.${tile.reason}`)}</strong>
          {tile.refunded > 0 && (
            <small data-testid="job-refunded">{t('job.refunded', { tokens: displayCoins(tile.refunded) })}</small>
          )}
        </div>
      );
  }
}

/** A job: its tiles, how far it is, and its cancel (while images are still coming). */
export function JobCard({
  job,
  onOpen,
  onCancel,
  onDismiss,
}: {
  job: Job;
  onOpen: (image: GalleryImage) => void;
  onCancel: () => void;
  onDismiss: () => void;
}) {
  const { t } = useTranslation('images');
  const summary = jobSummary(job);
  const ended = jobEnded(job);
  return (
    <section className={styles.job} data-testid="image-job" data-job-id={job.jobId} data-ended={ended}>
      <div className={styles.jobHead}>
        <span>
          {ended
            ? t('job.finished', { done: summary.done, total: job.tiles.length })
            : t('job.progress', { done: job.tiles.filter(isEnded).length, total: job.tiles.length })}
          {summary.refunded > 0 && ` · ${t('job.refunded', { tokens: displayCoins(summary.refunded) })}`}
        </span>
        {ended ? (
          <Button variant="ghost" size="small" onClick={onDismiss} data-testid="job-dismiss">
            {t('job.dismiss')}
          </Button>
        ) : (
          <Button
            variant="secondary"
            size="small"
            onClick={onCancel}
            disabled={job.cancelling}
            data-testid="job-cancel"
          >
            {job.cancelling ? t('job.cancelling') : t('job.cancel')}
          </Button>
        )}
      </div>
      <div className={styles.grid}>
        {job.tiles.map((tile) => (
          <JobTile key={tile.imageId} tile={tile} onOpen={onOpen} />
        ))}
      </div>
    </section>
  );
}

import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import styles from '@/components/lightbox.module.css';
import { Modal } from '@/components/modal';
import { mediaUrl } from '@/lib/media-url';

export interface LightboxImage {
  imageId: string;
  url: string;
  width: number;
  height: number;
}

export interface LightboxProps {
  image: LightboxImage | null;
  /** What the image shows, for screen readers and under the image. */
  caption: string;
  /** Download, share, delete: what the viewer may do with it. */
  actions?: ReactNode;
  illustration?: boolean;
  onClose: () => void;
}

/** An image in full view: as large as the screen allows, with its caption and actions. */
export function Lightbox({ image, caption, actions, illustration, onClose }: LightboxProps) {
  const { t } = useTranslation('images');
  const { t: tApp } = useTranslation();
  return (
    <Modal
      open={image !== null}
      onClose={onClose}
      title={caption || t('gallery.fullView')}
      closeLabel={tApp('common.close')}
      width={Math.min(900, window.innerWidth - 24)}
      testId="image-lightbox"
    >
      {image && (
        <div className={styles.lightbox}>
          <img
            className={styles.lightboxImage}
            src={mediaUrl(image.url)}
            width={image.width}
            height={image.height}
            alt={caption}
            data-testid="lightbox-image"
          />
          {(caption || illustration) && (
            <p className={styles.caption}>
              {illustration && <strong>{t('gallery.illustration')} · </strong>}
              {caption}
            </p>
          )}
          {actions && <div className={styles.actions}>{actions}</div>}
        </div>
      )}
    </Modal>
  );
}

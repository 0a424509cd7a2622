import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { CloseIcon } from '@/components/icons';
import styles from '@/components/modal.module.css';
import { useLatest } from '@/hooks/use-latest';

export interface ModalProps {
  open: boolean;
  onClose: () => void;
  /** The accessible name of the dialog. */
  title: string;
  closeLabel: string;
  width: number;
  maxHeight?: number;
  /** Modals that require a choice have no close button and ignore Escape and outside clicks. */
  dismissible?: boolean;
  children: ReactNode;
  testId?: string;
}

let openModals = 0;

/** A centred dialog in a portal: Escape and an outside click close it; page scroll is locked. */
export function Modal({
  open,
  onClose,
  title,
  closeLabel,
  width,
  maxHeight,
  dismissible = true,
  children,
  testId,
}: ModalProps) {
  const dialogRef = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const onCloseRef = useLatest(onClose);

  useEffect(() => {
    if (!open) return;
    openModals += 1;
    document.body.style.overflow = 'hidden';
    const previouslyFocused = document.activeElement as HTMLElement | null;
    dialogRef.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && dismissible) onCloseRef.current();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      openModals -= 1;
      if (openModals === 0) document.body.style.overflow = '';
      previouslyFocused?.focus?.();
    };
  }, [open, dismissible, onCloseRef]);

  if (!open) return null;
  return createPortal(
    <div
      className={styles.overlay}
      onMouseDown={(event) => {
        if (dismissible && event.target === event.currentTarget) onClose();
      }}
    >
      <div
        ref={dialogRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        className={styles.dialog}
        style={{ width, maxHeight }}
        data-testid={testId}
      >
        <span id={titleId} className="visually-hidden">
          {title}
        </span>
        {dismissible && (
          <button type="button" className={styles.close} onClick={onClose} aria-label={closeLabel}>
            <CloseIcon size={18} />
          </button>
        )}
        <div className={styles.body}>{children}</div>
      </div>
    </div>,
    document.body,
  );
}

import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { errorMessage } from '../api';
import { Icon } from './Icon';

/**
 * A modal dialog on the platform's <dialog> element (showModal): focus moves in and is kept
 * inside, Escape closes, the page behind is inert. Content mounts only while open, so forms
 * start fresh each time.
 */
export function Dialog({ open, onClose, title, description, children, wide = false, dismissable = true }: {
  open: boolean;
  onClose: () => void;
  title: string;
  description?: ReactNode;
  children: ReactNode;
  wide?: boolean;
  /** False while something must be acknowledged (a key shown once): Escape and the backdrop do nothing. */
  dismissable?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  // In document.body, not where it is declared: a dialog opened from inside a form (the
  // settings forms' "Remove") must not put its own form inside that one (nested forms are invalid
  // HTML, and the browser then submits the page instead).
  return createPortal(
    <dialog
      ref={ref}
      className={wide ? 'dialog dialog-wide' : 'dialog'}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(e) => {
        e.preventDefault();
        if (dismissable) onClose();
      }}
      onClick={(e) => {
        if (dismissable && e.target === ref.current) onClose();
      }}
    >
      {open && (
        <div className="dialog-inner">
          <header className="dialog-header">
            <h2 id={titleId}>{title}</h2>
            {dismissable && (
              <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
                <Icon name="x" />
              </button>
            )}
          </header>
          {description && (
            <div id={descriptionId} className="dialog-description">
              {description}
            </div>
          )}
          {children}
        </div>
      )}
    </dialog>,
    document.body,
  );
}

/** Asks before doing something that cannot be undone; shows the error in place if it fails. */
export function ConfirmDialog({ open, onClose, title, children, confirmLabel, onConfirm, danger = false }: {
  open: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  danger?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (open) {
      setBusy(false);
      setError(null);
    }
  }, [open]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // React's submit event bubbles through the component tree: a dialog opened from inside
    // another form (the settings forms' "Remove") must not submit that form too.
    e.stopPropagation();
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };
  return (
    <Dialog open={open} onClose={busy ? () => {} : onClose} title={title}>
      <form onSubmit={submit}>
        <div className="dialog-body">{children}</div>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className={danger ? 'btn btn-danger' : 'btn btn-primary'} disabled={busy} autoFocus>
            {busy ? 'Working…' : confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

import { useId, type InputHTMLAttributes, type ReactNode } from 'react';

/**
 * A labelled text input with an optional hint and error, tied to it with aria-describedby (so
 * the label stays the accessible name and the hint is read after it).
 */
export function TextField({ label, hint, error, invalid, ...input }: {
  label: ReactNode;
  hint?: ReactNode;
  /** Shown under the input. */
  error?: string | null | undefined;
  /** Marks the input invalid when the message is shown elsewhere. */
  invalid?: boolean;
} & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <input id={id} aria-describedby={describedBy} aria-invalid={error || invalid ? true : undefined} {...input} />
      {hint && (
        <span id={hintId} className="field-hint">
          {hint}
        </span>
      )}
      {error && (
        <span id={errorId} className="field-error">
          {error}
        </span>
      )}
    </div>
  );
}

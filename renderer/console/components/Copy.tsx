import { useEffect, useRef, useState } from 'react';
import { Icon } from './Icon';

/**
 * Copies text to the clipboard. The Clipboard API needs a secure context (https or localhost);
 * a hub reached as http://192.168.x.y is not one, so fall back to a selected textarea and the
 * copy command there.
 */
export async function copyText(text: string): Promise<boolean> {
  if (window.isSecureContext && navigator.clipboard) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // fall through to the legacy path
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'visually-hidden';
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

/** A copy button that says "Copied" for a moment (announced to screen readers). */
export function CopyButton({ value, label = 'Copy', className = 'btn btn-small' }: { value: string; label?: string; className?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const copy = async () => {
    const ok = await copyText(value);
    setState(ok ? 'copied' : 'failed');
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setState('idle'), 2000);
  };
  return (
    <button type="button" className={className} onClick={copy} aria-label={state === 'idle' ? label : undefined}>
      <Icon name={state === 'copied' ? 'check' : 'copy'} size={16} />
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy' : 'Copy'}</span>
    </button>
  );
}

/** A key or other value shown in full, selectable, with a copy button. */
export function CopyField({ value, label, copyLabel }: { value: string; label: string; copyLabel?: string }) {
  return (
    <div className="copy-field">
      <input
        className="copy-field-value mono"
        readOnly
        value={value}
        aria-label={label}
        onFocus={(e) => e.currentTarget.select()}
        spellCheck={false}
      />
      <CopyButton value={value} label={copyLabel ?? `Copy ${label}`} />
    </div>
  );
}

/** A secret shown exactly once (an API key): copy it now. */
export function SecretOnce({ value, label }: { value: string; label: string }) {
  return (
    <div className="secret-once">
      <CopyField value={value} label={label} />
      <p className="callout callout-warning">
        <Icon name="alert" size={16} />
        <span>
          <strong>Copy it now: you will not see it again.</strong> The hub keeps only a fingerprint of the key. If you lose it,
          rotate the key.
        </span>
      </p>
    </div>
  );
}

import { useEffect, useRef } from 'react';
import { CopyButton } from '../../console/components/Copy';
import { Icon } from '../../console/components/Icon';
import { BrandMark } from '../components/AppBar';

/**
 * "Your User Key", right after signing in on this device (spec: "The User Key is shown right
 * after the sign-in page on first installation"): the key, a copy button, one line on what it is
 * for, and the way on to the inbox.
 */
export function UserKeyPage({ name, userKey, onContinue }: { name: string; userKey: string; onContinue: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <div className="auth-page receiver-auth">
      <section className="auth-card key-card" aria-labelledby="user-key-title">
        <span className="brand">
          <BrandMark />
          <span className="receiver-brand-name">Pushhub</span>
        </span>
        <div className="key-welcome">
          <span className="key-check" aria-hidden="true">
            <Icon name="check" size={18} />
          </span>
          <span className="muted">Signed in{name ? ` as ${name}` : ''}</span>
        </div>
        <h1 id="user-key-title" tabIndex={-1} ref={heading}>
          Your User Key
        </h1>
        <output className="user-key" aria-label="User Key">
          {userKey}
        </output>
        <p className="key-explain">Scripts and apps send notifications to you with this key; it is the same on all your devices.</p>
        <CopyButton value={userKey} label="Copy User Key" className="btn btn-block" />
        <button type="button" className="btn btn-primary btn-block" onClick={onContinue}>
          Continue to inbox
        </button>
        <p className="auth-foot">
          <Icon name="settings" size={15} />
          <span>You can find it again in Settings, behind the ⋮ menu.</span>
        </p>
      </section>
    </div>
  );
}

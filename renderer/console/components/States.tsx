import { useId, type ReactNode } from 'react';
import { ApiError, errorMessage } from '../api';
import { Icon, type IconName } from './Icon';

/** A spinner with a label (announced politely). */
export function Loading({ label = 'Loading…', inline = false }: { label?: string; inline?: boolean }) {
  return (
    <div className={inline ? 'loading loading-inline' : 'loading'} role="status">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/** What went wrong, in words, with a way to try again. */
export function ErrorState({ error, onRetry, title = 'Something went wrong' }: { error: unknown; onRetry?: () => void; title?: string }) {
  const notFound = error instanceof ApiError && error.status === 404;
  return (
    <div className="state state-error" role="alert">
      <span className="state-icon state-icon-error">
        <Icon name="alert" size={22} />
      </span>
      <h2>{notFound ? 'Not found' : title}</h2>
      <p>{errorMessage(error)}</p>
      {onRetry && !notFound && (
        <button type="button" className="btn" onClick={onRetry}>
          <Icon name="rotate" size={16} /> Try again
        </button>
      )}
    </div>
  );
}

/** An empty list: what would be here, and how to get something here. */
export function EmptyState({ icon, title, children, action }: { icon: IconName; title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="state">
      <span className="state-icon">
        <Icon name={icon} size={22} />
      </span>
      <h2>{title}</h2>
      {children && <div className="state-text">{children}</div>}
      {action && <div className="state-action">{action}</div>}
    </div>
  );
}

/** A page's title line with its description and main actions. */
export function PageHeader({ title, description, actions, back }: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  back?: ReactNode;
}) {
  return (
    <header className="page-header">
      {back && <div className="page-back">{back}</div>}
      <div className="page-header-row">
        <div className="page-header-text">
          <h1>{title}</h1>
          {description && <p className="page-description">{description}</p>}
        </div>
        {actions && <div className="page-actions">{actions}</div>}
      </div>
    </header>
  );
}

/** A titled card section (a landmark region named by its title). */
export function Section({ title, description, actions, children, id, className }: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  id?: string;
  className?: string;
}) {
  const auto = useId();
  const titleId = `${id ?? auto}-title`;
  return (
    <section className={className ? `card ${className}` : 'card'} id={id} aria-labelledby={titleId}>
      <div className="card-header">
        <div>
          <h2 id={titleId}>{title}</h2>
          {description && <p className="card-description">{description}</p>}
        </div>
        {actions && <div className="card-actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

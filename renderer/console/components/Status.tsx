import type { DeliveryStatus, DeliverySummary } from '../api';
import { formatDateTime, formatRelative, statusNames, summaryText } from '../format';

/** A delivery's status as a coloured badge. */
export function StatusBadge({ status }: { status: DeliveryStatus }) {
  return <span className={`badge badge-${status}`}>{statusNames[status]}</span>;
}

/** "3/4 delivered, 1 failed" with a thin bar of the same proportions. */
export function SummaryBar({ summary }: { summary: DeliverySummary }) {
  const { total } = summary;
  const width = (n: number) => `${total ? (n / total) * 100 : 0}%`;
  return (
    <div className="summary">
      <span className="summary-text">{summaryText(summary)}</span>
      {total > 0 && (
        <span className="summary-bar" aria-hidden="true">
          <span className="summary-delivered" style={{ width: width(summary.delivered) }} />
          <span className="summary-failed" style={{ width: width(summary.failed + summary.expired) }} />
          <span className="summary-pending" style={{ width: width(summary.pending) }} />
        </span>
      )}
    </div>
  );
}

/** A time as "5 minutes ago", with the exact time on hover and for machines. */
export function Time({ iso, fallback = 'Never' }: { iso: string | null; fallback?: string }) {
  if (!iso) return <span className="muted">{fallback}</span>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatRelative(iso)}
    </time>
  );
}

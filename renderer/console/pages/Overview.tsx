import { lazy, Suspense, useId, useState } from 'react';
import { api, type Platform, type Stats } from '../api';
import { Icon, type IconName } from '../components/Icon';
import { ErrorState, Loading, PageHeader, Section } from '../components/States';
import { formatNumber, formatPercent, platformNames } from '../format';
import { useInterval, useResource, useTitle } from '../hooks';
import { Link } from '../router';

// The chart library is the biggest dependency: loaded only when the overview shows a chart.
const DailyChart = lazy(() => import('./OverviewChart').then((m) => ({ default: m.DailyChart })));

const RANGES = [7, 14, 30] as const;
const dayLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const shortDay = (date: string) => dayLabel.format(new Date(`${date}T12:00:00`));

/** Counts, a chart of notifications per day with the delivery success rate, and first steps. */
export function OverviewPage() {
  useTitle('Overview');
  const [days, setDays] = useState<(typeof RANGES)[number]>(14);
  const stats = useResource(() => api.stats(days), [days]);
  useInterval(() => document.visibilityState === 'visible' && void stats.reload(), 15_000, stats.data !== undefined);

  return (
    <div className="page">
      <PageHeader title="Overview" description="How this hub is doing." />
      {stats.error !== undefined && !stats.data ? (
        <ErrorState error={stats.error} onRetry={stats.reload} title="The figures could not be loaded" />
      ) : !stats.data ? (
        <Loading label="Loading figures…" />
      ) : (
        <OverviewContent stats={stats.data} days={days} setDays={setDays} />
      )}
    </div>
  );
}

function OverviewContent({ stats, days, setDays }: { stats: Stats; days: number; setDays: (d: (typeof RANGES)[number]) => void }) {
  const rangeName = useId();
  const chartData = stats.days.map((d) => ({
    ...d,
    label: shortDay(d.date),
    rate: d.successRate === null ? null : Math.round(d.successRate * 1000) / 10,
  }));
  const sentInRange = stats.days.reduce((n, d) => n + d.notifications, 0);
  const platforms = (Object.keys(stats.devices.byPlatform) as Platform[]).filter((p) => stats.devices.byPlatform[p].total > 0);
  const maxPlatform = Math.max(1, ...platforms.map((p) => stats.devices.byPlatform[p].total));
  const firstSteps = stats.apps === 0 || stats.users === 0 || stats.notifications.total === 0;

  return (
    <>
      {firstSteps && <FirstSteps stats={stats} />}
      <div className="stat-grid">
        <StatCard icon="apps" label="Apps" value={formatNumber(stats.apps)} to="/apps" />
        <StatCard icon="users" label="Users" value={formatNumber(stats.users)} to="/users" />
        <StatCard icon="groups" label="User Groups" value={formatNumber(stats.groups)} to="/groups" />
        <StatCard
          icon="device"
          label="Active devices"
          value={formatNumber(stats.devices.active)}
          note={stats.devices.total > stats.devices.active ? `${stats.devices.total - stats.devices.active} deactivated` : undefined}
        />
        <StatCard icon="bell" label="Notifications, last 24 h" value={formatNumber(stats.notifications.last24h)} note={`${formatNumber(stats.notifications.total)} in all`} to="/notifications" />
        <StatCard
          icon="check"
          label="Delivery success"
          value={formatPercent(stats.deliveries.successRate)}
          note={stats.deliveries.pending ? `${formatNumber(stats.deliveries.pending)} pending` : 'of finished deliveries'}
        />
      </div>

      <Section
        title="Notifications per day"
        description={`${formatNumber(sentInRange)} in the last ${days} days; the line is the share of finished deliveries that arrived.`}
        actions={
          <fieldset className="segmented">
            <legend className="visually-hidden">Range</legend>
            {RANGES.map((r) => (
              <label key={r}>
                <input type="radio" name={rangeName} checked={days === r} onChange={() => setDays(r)} />
                <span>{r} days</span>
              </label>
            ))}
          </fieldset>
        }
      >
        <div className="chart" aria-hidden="true">
          <Suspense fallback={<Loading inline label="Drawing the chart…" />}>
            <DailyChart data={chartData} />
          </Suspense>
          {sentInRange === 0 && (
            <div className="chart-empty">
              <span>Nothing sent in the last {days} days.</span>
            </div>
          )}
        </div>
        <table className="visually-hidden">
          <caption>Notifications per day and delivery success rate</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Notifications</th>
              <th scope="col">Success rate</th>
            </tr>
          </thead>
          <tbody>
            {stats.days.map((d) => (
              <tr key={d.date}>
                <td>{d.date}</td>
                <td>{d.notifications}</td>
                <td>{formatPercent(d.successRate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>

      <div className="grid-2">
        <Section title="Devices by platform">
          {platforms.length === 0 ? (
            <p className="muted">No devices yet. They appear when users sign in to a receiver app.</p>
          ) : (
            <ul className="bars">
              {platforms.map((p) => {
                const { total, active } = stats.devices.byPlatform[p];
                return (
                  <li key={p}>
                    <span className="bars-label">{platformNames[p]}</span>
                    <span className="bars-track" aria-hidden="true">
                      <span className="bars-fill" style={{ width: `${(total / maxPlatform) * 100}%` }} />
                    </span>
                    <span className="bars-value">
                      {active}
                      {total > active && <span className="muted"> / {total}</span>}
                    </span>
                  </li>
                );
              })}
            </ul>
          )}
        </Section>
        <Section title="Deliveries">
          <dl className="facts facts-4">
            <div>
              <dt>Delivered</dt>
              <dd>{formatNumber(stats.deliveries.delivered)}</dd>
            </div>
            <div>
              <dt>Pending</dt>
              <dd>{formatNumber(stats.deliveries.pending)}</dd>
            </div>
            <div>
              <dt>Failed</dt>
              <dd>{formatNumber(stats.deliveries.failed)}</dd>
            </div>
            <div>
              <dt>Expired</dt>
              <dd>{formatNumber(stats.deliveries.expired)}</dd>
            </div>
          </dl>
        </Section>
      </div>
    </>
  );
}

function StatCard({ icon, label, value, note, to }: { icon: IconName; label: string; value: string; note?: string | undefined; to?: string }) {
  const content = (
    <>
      <span className="stat-icon">
        <Icon name={icon} size={18} />
      </span>
      <span className="stat-label">{label}</span>
      <span className="stat-value">{value}</span>
      {note && <span className="stat-note">{note}</span>}
    </>
  );
  return to ? (
    <Link to={to} className="stat-card stat-card-link">
      {content}
    </Link>
  ) : (
    <div className="stat-card">{content}</div>
  );
}

function FirstSteps({ stats }: { stats: Stats }) {
  const steps = [
    { done: stats.apps > 0, title: 'Create an app', text: 'It gets the API key your scripts send with.', to: '/apps' },
    { done: stats.users > 0, title: 'Create a user', text: 'A receiver with a User Key and a sign-in for the receiver apps.', to: '/users' },
    { done: stats.notifications.total > 0, title: 'Send a notification', text: 'From the Send test page, or with curl from any script.', to: '/send' },
  ];
  return (
    <section className="card first-steps" aria-labelledby="first-steps-title">
      <h2 id="first-steps-title">Get started</h2>
      <ol className="steps">
        {steps.map((s, i) => (
          <li key={s.title} className={s.done ? 'step done' : 'step'}>
            <span className="step-mark" aria-hidden="true">
              {s.done ? <Icon name="check" size={14} /> : i + 1}
            </span>
            <span className="step-text">
              <Link to={s.to}>{s.title}</Link>
              <span className="muted">{s.text}</span>
            </span>
            {s.done && <span className="visually-hidden">(done)</span>}
          </li>
        ))}
      </ol>
    </section>
  );
}

import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

/** One bar per day (notifications) and a line (delivery success rate, %). */
export interface ChartDay {
  label: string;
  notifications: number;
  rate: number | null;
}

/** Notifications per day with the delivery success rate (Recharts). */
export function DailyChart({ data: chartData }: { data: ChartDay[] }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <ComposedChart data={chartData} margin={{ top: 8, right: 8, bottom: 0, left: -12 }}>
        <CartesianGrid vertical={false} stroke="var(--border)" />
        <XAxis dataKey="label" tickLine={false} axisLine={false} tick={{ fill: 'var(--text-muted)', fontSize: 12 }} minTickGap={12} />
        <YAxis yAxisId="count" allowDecimals={false} tickLine={false} axisLine={false} tick={{ fill: 'var(--text-muted)', fontSize: 12 }} />
        <YAxis
          yAxisId="rate"
          orientation="right"
          domain={[0, 100]}
          unit="%"
          tickLine={false}
          axisLine={false}
          tick={{ fill: 'var(--text-muted)', fontSize: 12 }}
        />
        <Tooltip
          cursor={{ fill: 'var(--hover)' }}
          contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)', borderRadius: 8, color: 'var(--text)' }}
          formatter={(value, name) => (name === 'Success rate' ? [value === null ? '—' : `${String(value)}%`, name] : [value, name])}
        />
        <Legend iconType="circle" wrapperStyle={{ fontSize: 13, color: 'var(--text-muted)' }} />
        <Bar yAxisId="count" dataKey="notifications" name="Notifications" fill="var(--accent)" radius={[4, 4, 0, 0]} maxBarSize={36} isAnimationActive={false} />
        <Line yAxisId="rate" dataKey="rate" name="Success rate" stroke="var(--success)" strokeWidth={2} dot={{ r: 3 }} connectNulls type="monotone" isAnimationActive={false} />
      </ComposedChart>
    </ResponsiveContainer>
  );
}

"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { apiFetch, describeError } from "@/lib/client/api";
import { formatBytes } from "@/lib/client/format";
import { useProject } from "@/lib/client/hooks";
import type { Page } from "@/lib/client/types";
import { Alert, Card, SelectField } from "@/components/ui";

/** One hour of `_usage` (CONTRACT §10). */
interface UsageHour {
  _id: string;
  date: string;
  data_size: number;
  files_size: number;
  requests: number;
  bytes_in: number;
  bytes_out: number;
}

const RANGES = [
  { hours: 24, label: "Last 24 hours" },
  { hours: 24 * 7, label: "Last 7 days" },
  { hours: 24 * 30, label: "Last 30 days" },
];

/**
 * Charts of the project's hourly `_usage`: requests, bytes in and out, data and files size, with
 * the project's limits drawn as lines. Hours without traffic have no record: they are drawn as 0
 * requests (the sizes carry on from the hour before).
 */
export function UsageView({ projectId }: { projectId: string }) {
  const [hours, setHours] = useState(24 * 7);
  const project = useProject(projectId).data;
  const since = new Date(Date.now() - hours * 3_600_000).toISOString();
  const usage = useQuery({
    queryKey: ["projects", projectId, "usage", hours],
    queryFn: ({ signal }) =>
      apiFetch<Page<UsageHour>>(`/api/collections/_usage/documents/?per_page=1000&sort=date&filter=${encodeURIComponent(JSON.stringify({ date: { $gte: since } }))}`, {
        project: projectId,
        signal,
      }),
  });
  const points = fillHours(usage.data?.items ?? [], hours);
  const dataLimit = project?.settings.data_size_limit ?? 0;
  const filesLimit = project?.settings.files_size_limit ?? 0;
  const totals = points.reduce((sum, p) => ({ requests: sum.requests + p.requests, bytes_in: sum.bytes_in + p.bytes_in, bytes_out: sum.bytes_out + p.bytes_out }), { requests: 0, bytes_in: 0, bytes_out: 0 });
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <p className="text-sm text-slate-600" data-testid="usage-totals">
          {totals.requests.toLocaleString("en")} requests · {formatBytes(totals.bytes_in)} in · {formatBytes(totals.bytes_out)} out
        </p>
        <SelectField label="Period" value={hours} onChange={(e) => setHours(Number(e.target.value))} className="w-48">
          {RANGES.map((range) => (
            <option key={range.hours} value={range.hours}>
              {range.label}
            </option>
          ))}
        </SelectField>
      </div>
      {usage.isError && <Alert>{describeError(usage.error)}</Alert>}
      <Card title="Requests" description="API calls per hour.">
        <Chart label="Requests per hour">
          <BarChart data={points}>
            <CartesianGrid strokeDasharray="3 3" stroke="#cbd5e1" />
            <XAxis dataKey="label" minTickGap={24} fontSize={11} />
            <YAxis allowDecimals={false} fontSize={11} width={48} />
            <Tooltip />
            <Bar dataKey="requests" name="Requests" fill="#4f46e5" isAnimationActive={false} />
          </BarChart>
        </Chart>
      </Card>
      <Card title="Traffic" description="Bytes received and sent per hour.">
        <Chart label="Bytes in and out per hour">
          <LineChart data={points}>
            <CartesianGrid strokeDasharray="3 3" stroke="#cbd5e1" />
            <XAxis dataKey="label" minTickGap={24} fontSize={11} />
            <YAxis tickFormatter={formatBytes} fontSize={11} width={64} />
            <Tooltip formatter={(value) => formatBytes(Number(value))} />
            <Legend />
            <Line dataKey="bytes_in" name="In" stroke="#0891b2" dot={false} isAnimationActive={false} />
            <Line dataKey="bytes_out" name="Out" stroke="#7c3aed" dot={false} isAnimationActive={false} />
          </LineChart>
        </Chart>
      </Card>
      <Card title="Storage" description={`Data and files size at the end of each hour${dataLimit || filesLimit ? ", with the project's limits" : " (no limits set)"}.`}>
        <Chart label="Data and files size">
          <LineChart data={points}>
            <CartesianGrid strokeDasharray="3 3" stroke="#cbd5e1" />
            <XAxis dataKey="label" minTickGap={24} fontSize={11} />
            <YAxis tickFormatter={formatBytes} fontSize={11} width={64} domain={[0, (max: number) => Math.max(max, dataLimit, filesLimit) * 1.05 || 1]} />
            <Tooltip formatter={(value) => formatBytes(Number(value))} />
            <Legend />
            <Line dataKey="data_size" name="Data" stroke="#059669" dot={false} isAnimationActive={false} />
            <Line dataKey="files_size" name="Files" stroke="#d97706" dot={false} isAnimationActive={false} />
            {dataLimit > 0 && <ReferenceLine y={dataLimit} stroke="#059669" strokeDasharray="6 3" label={{ value: `Data limit ${formatBytes(dataLimit)}`, fontSize: 11, position: "insideTopLeft" }} />}
            {filesLimit > 0 && <ReferenceLine y={filesLimit} stroke="#d97706" strokeDasharray="6 3" label={{ value: `Files limit ${formatBytes(filesLimit)}`, fontSize: 11, position: "insideBottomLeft" }} />}
          </LineChart>
        </Chart>
      </Card>
    </div>
  );
}

function Chart({ label, children }: { label: string; children: React.ReactElement }) {
  return (
    <figure role="img" aria-label={label} className="h-56 w-full">
      <ResponsiveContainer width="100%" height="100%">
        {children}
      </ResponsiveContainer>
    </figure>
  );
}

/** Every hour of the period, in order, from the records there are. */
export function fillHours(items: UsageHour[], hours: number, now = Date.now()) {
  const byHour = new Map(items.map((item) => [item.date.slice(0, 13), item]));
  const end = Math.floor(now / 3_600_000) * 3_600_000;
  const points = [];
  let sizes = { data_size: items[0]?.data_size ?? 0, files_size: items[0]?.files_size ?? 0 };
  for (let t = end - (hours - 1) * 3_600_000; t <= end; t += 3_600_000) {
    const iso = new Date(t).toISOString();
    const record = byHour.get(iso.slice(0, 13));
    if (record) sizes = { data_size: record.data_size, files_size: record.files_size };
    points.push({
      label: hours <= 24 ? iso.slice(11, 16) : `${iso.slice(5, 10)} ${iso.slice(11, 13)}h`,
      requests: record?.requests ?? 0,
      bytes_in: record?.bytes_in ?? 0,
      bytes_out: record?.bytes_out ?? 0,
      ...sizes,
    });
  }
  return points;
}

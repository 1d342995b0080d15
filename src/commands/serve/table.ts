/** The start-up report: one row per model version, then the endpoints. Plain text, aligned columns. */
import type { VersionStatus } from '../../core/server/model-manager.js';
import type { ServerPorts } from '../../core/server/server.js';

export function modelTable(rows: VersionStatus[]): string {
  const header = ['MODEL', 'VERSION', 'STATE', 'ENGINE', 'INSTANCES', 'REASON'];
  const body = rows.map((r) => [r.name, r.version || '-', r.state, r.model?.engine ?? '-', r.model ? String(r.model.instanceCount) : '-', reason(r)]);
  if (body.length === 0) return 'no models loaded\n';
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...body.map(line)].join('\n') + '\n';
}

/** Why a version is not READY; for a READY one, the config fields serve ignored. */
function reason(r: VersionStatus): string {
  if (r.reason) return r.reason;
  return r.ignored ? `ignored (not implemented by gebe serve): ${r.ignored.join(', ')}` : '';
}

export function endpointLines(hosts: { http: string; grpc: string; metrics: string }, ports: ServerPorts): string {
  const h = (host: string) => (host.includes(':') ? `[${host}]` : host);
  const lines: string[] = [];
  if (ports.http !== undefined) lines.push(`HTTP     http://${h(hosts.http)}:${ports.http}/v2`);
  if (ports.grpc !== undefined) lines.push(`gRPC     ${h(hosts.grpc)}:${ports.grpc}`);
  if (ports.metrics !== undefined) lines.push(`metrics  http://${h(hosts.metrics)}:${ports.metrics}/metrics`);
  return lines.join('\n') + '\n';
}

/**
 * The human report: one row per setting (latencies in ms) and a summary naming the best-throughput
 * setting, the best one under --latency-threshold, and any setting where the client saturated a core.
 */
import type { ChalkInstance } from 'chalk';
import { settingLabel, type PerfReport, type ReportRow } from '../report.js';

/** Milliseconds with the digits that matter: 3 significant-ish places from 0.001 ms up. */
const ms = (us: number | undefined) => (us === undefined || !Number.isFinite(us) ? '-'
  : (us / 1000).toFixed(us >= 100_000 ? 0 : us >= 10_000 ? 1 : us >= 100 ? 2 : 3));
const rate = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));

export function formatTable(report: PerfReport, c: ChalkInstance): string {
  const loadHeader = report.load === 'concurrency' ? 'concurrency' : 'req/s';
  const headers = ['batch', loadHeader, 'infer/s', 'avg ms', 'p50', 'p90', 'p95', 'p99', 'queue', 'c.input', 'c.infer', 'c.output', 'status'];
  const cells = report.rows.map((r: ReportRow) => [
    String(r.batchSize),
    String(r.concurrency ?? r.requestRate),
    rate(r.throughput) + (r.clientSaturated ? '*' : ''),
    ms(r.latencyUs.avg), ms(r.latencyUs.p50), ms(r.latencyUs.p90), ms(r.latencyUs.p95), ms(r.latencyUs.p99),
    ms(r.server?.queueUs), ms(r.server?.computeInputUs), ms(r.server?.computeInferUs), ms(r.server?.computeOutputUs),
    r.status,
  ]);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]!.length)));
  const last = headers.length - 1;
  const line = (row: string[]) => row.map((cell, i) => (i === last ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd();
  const out: string[] = [];
  out.push(c.bold(`${report.model.name} v${report.model.version} · ${report.target}`));
  out.push(c.dim(line(headers)));
  for (const row of cells) out.push(line(row));
  out.push(c.dim('latency in ms; queue/c.* = server-side averages per request (statistics extension)'));
  const intervals = report.settings?.requestIntervals;
  if (intervals) out.push(c.dim(`req/s = the rate the ${intervals.intervals} intervals of ${intervals.file} make (sent with those gaps, cycled)`));
  const cached = report.rows.filter((r) => r.server?.cache);
  if (cached.length > 0) {
    out.push(c.dim('response cache (c.* above are per computed request: a hit has none):'));
    for (const r of cached) {
      const { hitCount, missCount, hitUs, missUs } = r.server!.cache!;
      const share = Math.round((100 * hitCount) / (hitCount + missCount));
      out.push(`  ${settingLabel(r)}  ${hitCount} hits, ${missCount} misses (${share}% hits) · a hit ${ms(hitUs)} · a miss's lookup and insertion ${ms(missUs)}`);
    }
  }
  const composing = report.rows.filter((r) => r.server?.composing?.length);
  if (composing.length > 0) {
    out.push(c.dim("composing models (each model's server-side averages per request of its own, ms; the ensemble's queue/c.* are their sums):"));
    for (const r of composing) {
      for (const m of r.server!.composing!) {
        out.push(`  ${settingLabel(r)}  ${m.name} v${m.version}: ${m.inferenceCount} inferences, ${m.executionCount} executions · queue ${ms(m.queueUs)} · c.input ${ms(m.computeInputUs)} · c.infer ${ms(m.computeInferUs)} · c.output ${ms(m.computeOutputUs)}`);
      }
    }
  }
  for (const r of report.rows) {
    if (r.status === 'unstable') out.push(`${c.yellow('unstable')} ${settingLabel(r)}: ${r.note ?? ''}`);
    if (r.status === 'failed') out.push(`${c.red('failed')} ${settingLabel(r)}: ${r.note ?? ''}`);
  }
  const hints = [...new Set(report.rows.flatMap((r) => (r.hint ? [r.hint] : [])))];
  for (const hint of hints) out.push(c.dim(`unstable rows show their last windows; ${hint}`));
  out.push('');
  const s = report.summary;
  out.push(`${c.green('best throughput')}: ${settingLabel(s.best)} → ${rate(s.best.throughput)} infer/s at ${s.latencyMetric} ${ms(s.best.latencyUs)} ms`);
  if (s.latencyThresholdMs !== undefined) {
    if (s.bestUnderThreshold) {
      out.push(`${c.green(`best under ${s.latencyThresholdMs} ms`)} (${s.latencyMetric}): ${settingLabel(s.bestUnderThreshold)} → ${rate(s.bestUnderThreshold.throughput)} infer/s at ${ms(s.bestUnderThreshold.latencyUs)} ms`);
    } else {
      out.push(`${c.yellow(`no setting kept ${s.latencyMetric} latency under ${s.latencyThresholdMs} ms`)}; try lower concurrency or a smaller batch`);
    }
  }
  if (report.incomplete !== undefined) {
    out.push(c.yellow(`incomplete: the sweep stopped after ${report.rows.length} setting${report.rows.length === 1 ? '' : 's'} (the error follows)`));
  }
  if (s.clientSaturated.length > 0) {
    const fix = report.mode === 'in-process'
      ? 'one JS thread feeds the executor in process; use larger batches, or measure through `gebe serve` with -u'
      : `raise --client-threads (now ${report.clientThreads})`;
    out.push(`${c.yellow('* client saturated a core')} at ${s.clientSaturated.map(settingLabel).join('; ')}: those figures may be client-bound; ${fix}`);
  }
  return `${out.join('\n')}\n`;
}

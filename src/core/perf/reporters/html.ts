/**
 * --report report.html: one self-contained file (inline CSS and SVG, no scripts, no links) that can
 * be read alone: what was measured (model and its performance configuration, target, machine,
 * measurement settings), throughput vs load per batch size, a latency-percentile chart per batch
 * size, where the average latency went per setting (a stacked bar), and the table with units.
 */
import { settingLabel, type PerfReport, type ReportRow } from '../report.js';
import { escapeXml, lineChart, stackedBarChart, type Series } from './svg-chart.js';

const ms = (us: number | undefined) => (us === undefined || !Number.isFinite(us) ? '–' : (us / 1000).toFixed(2));
const msValue = (us: number | undefined) => (us === undefined || !Number.isFinite(us) ? 0 : us / 1000);
const PERCENTILES = ['p50', 'p90', 'p95', 'p99'] as const;

/** Segments of the average latency, client to server and back, in the order perf_analyzer lists them. */
const BREAKDOWN = ['client send', 'network + I/O', 'queue', 'compute input', 'compute infer', 'compute output', 'client recv'];

function breakdown(r: ReportRow): number[] {
  return [r.clientSendUs, r.networkServerUs, r.server?.queueUs, r.server?.computeInputUs, r.server?.computeInferUs, r.server?.computeOutputUs, r.clientRecvUs].map(msValue);
}

function loadOf(r: ReportRow): number {
  return r.concurrency ?? r.requestRate ?? 0;
}

function charts(report: PerfReport, loadName: string): string {
  const measured = report.rows.filter((r) => r.status !== 'failed');
  const batchSizes = [...new Set(measured.map((r) => r.batchSize))];
  const out: string[] = [];
  out.push(lineChart({
    title: `Throughput vs ${loadName}`, xLabel: loadName, yLabel: 'throughput (inferences/s)',
    series: batchSizes.map((b) => ({ name: `batch ${b}`, points: measured.filter((r) => r.batchSize === b).map((r) => ({ x: loadOf(r), y: r.throughput })) })),
  }));
  for (const b of batchSizes) {
    const rows = measured.filter((r) => r.batchSize === b);
    const series: Series[] = PERCENTILES.map((p) => ({ name: p, points: rows.map((r) => ({ x: loadOf(r), y: r.latencyUs[p] / 1000 })) }));
    out.push(lineChart({ title: `Latency percentiles, batch ${b}`, xLabel: loadName, yLabel: 'latency (ms)', series }));
  }
  if (measured.some((r) => r.server)) {
    out.push(stackedBarChart({
      title: 'Where the average latency went',
      yLabel: 'average latency per request (ms)',
      segments: BREAKDOWN,
      bars: measured.map((r) => ({ label: `b${r.batchSize} ${report.load === 'concurrency' ? 'c' : 'r'}${loadOf(r)}`, values: breakdown(r) })),
    }));
  }
  return out.join('\n');
}

function table(report: PerfReport): string {
  const load = report.load === 'concurrency' ? 'concurrency' : 'request rate (req/s)';
  const head = ['batch size', load, 'throughput (infer/s)', 'avg (ms)', 'p50 (ms)', 'p90 (ms)', 'p95 (ms)', 'p99 (ms)',
    'server queue (ms)', 'compute input (ms)', 'compute infer (ms)', 'compute output (ms)', 'windows', 'status'];
  const rows = report.rows.map((r) => {
    const cells = [String(r.batchSize), String(loadOf(r)), r.status === 'failed' ? '–' : `${r.throughput.toFixed(1)}${r.clientSaturated ? ' *' : ''}`,
      ms(r.latencyUs.avg), ...PERCENTILES.map((p) => ms(r.latencyUs[p])),
      ms(r.server?.queueUs), ms(r.server?.computeInputUs), ms(r.server?.computeInferUs), ms(r.server?.computeOutputUs), String(r.windows)];
    const status = `<td class="${r.status}"${r.note ? ` title="${escapeXml(r.note)}"` : ''}>${r.status}</td>`;
    return `<tr>${cells.map((c) => `<td>${escapeXml(c)}</td>`).join('')}${status}</tr>`;
  });
  const notes = report.rows.filter((r) => r.note).map((r) => `<li><b class="${r.status}">${r.status}</b> ${escapeXml(settingLabel(r))}: ${escapeXml(r.note!)}</li>`);
  for (const hint of new Set(report.rows.flatMap((r) => (r.hint ? [r.hint] : [])))) notes.push(`<li class="dim">Unstable rows show their last windows; ${escapeXml(hint)}.</li>`);
  return `<table><thead><tr>${head.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
<p class="dim">Latencies are client-side, per request, from the first send to the last byte of the answer; server columns are the server's own averages per request (statistics extension deltas), "–" where it did not report them.</p>
${notes.length ? `<ul>${notes.join('')}</ul>` : ''}`;
}

function definitionList(entries: Array<[string, string | undefined]>): string {
  return `<dl>${entries.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => `<dt>${escapeXml(k)}</dt><dd>${escapeXml(v!)}</dd>`).join('')}</dl>`;
}

function whatWasMeasured(report: PerfReport): string {
  const e = report.environment;
  const s = report.settings;
  const window = s ? (s.measurementMode === 'time_windows' ? `${s.measurementIntervalMs} ms time windows` : `${s.measurementRequestCount}-request count windows`) : undefined;
  const run = definitionList([
    ['target', report.target],
    ['load', report.load === 'concurrency' ? 'concurrency (requests kept outstanding)'
      : s?.requestIntervals ? `the ${s.requestIntervals.intervals} intervals of ${s.requestIntervals.file}, cycled (the request rate is the one they make)` : 'fixed request rate'],
    ['client threads', report.mode === 'in-process' ? 'none (the executor runs on its own threads)' : String(report.clientThreads)],
    ['windows', window],
    ['stability', s ? `last 3 windows within ${s.stabilityPercentage}% (${s.percentile !== undefined ? `p${s.percentile}` : 'average'} latency and throughput), at most ${s.maxTrials} windows` : undefined],
    ['input data', s?.inputData],
    ['warm-up requests', s ? String(s.warmupRequestCount) : undefined],
  ]);
  const machine = e ? definitionList([
    ['machine running gebe perf', `${e.cpu}, ${e.cores} cores, ${e.memoryGiB} GiB`],
    ['system', e.os],
    ['software', `gebe ${e.gebeVersion}, Node.js ${e.node}`],
  ]) : '';
  const config = report.modelConfig && Object.keys(report.modelConfig).length > 0
    ? `<h3>Model configuration (as the target runs it)</h3><pre>${escapeXml(JSON.stringify(report.modelConfig, null, 2))}</pre>` : '';
  return `<h2>What was measured</h2><div class="facts">${run}${machine}</div>${config}`;
}

export function formatHtml(report: PerfReport, generatedAt: Date): string {
  const loadName = report.load === 'concurrency' ? 'concurrency' : 'request rate (req/s)';
  const s = report.summary;
  const threshold = s.latencyThresholdMs === undefined ? '' : s.bestUnderThreshold
    ? `<li>Best under ${s.latencyThresholdMs} ms (${s.latencyMetric}): <b>${escapeXml(settingLabel(s.bestUnderThreshold))}</b>, ${s.bestUnderThreshold.throughput.toFixed(1)} infer/s</li>`
    : `<li>No setting kept ${s.latencyMetric} latency under ${s.latencyThresholdMs} ms.</li>`;
  const saturated = s.clientSaturated.length === 0 ? '' : `<li>* The client saturated a core at ${escapeXml(s.clientSaturated.map(settingLabel).join('; '))}: those figures may be client-bound.</li>`;
  const title = `gebe perf: ${report.model.name} v${report.model.version}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1400px}table{border-collapse:collapse}td,th{padding:3px 10px;text-align:right;border-bottom:1px solid #ddd}th{background:#f4f4f4;font-weight:600}.charts{display:flex;flex-wrap:wrap;gap:1em}.dim{color:#666;font-size:90%}.unstable{color:#a05a00}.failed{color:#b00020}.facts{display:flex;flex-wrap:wrap;gap:3em}dl{display:grid;grid-template-columns:max-content auto;gap:2px 1em;margin:0}dt{color:#666}dd{margin:0}pre{background:#f7f7f7;padding:8px;font-size:90%;max-width:60em;overflow:auto}</style>
</head><body>
<h1>${escapeXml(title)}</h1>
<p class="dim">Generated ${escapeXml(generatedAt.toISOString())}</p>
${report.incomplete !== undefined ? `<p class="failed"><b>Incomplete:</b> ${escapeXml(report.incomplete)}</p>\n` : ''}<ul><li>Best throughput: <b>${escapeXml(settingLabel(s.best))}</b>, ${s.best.throughput.toFixed(1)} infer/s at ${s.latencyMetric} ${ms(s.best.latencyUs)} ms</li>${threshold}${saturated}</ul>
${whatWasMeasured(report)}
<h2>Charts</h2>
<div class="charts">
${charts(report, loadName)}
</div>
<h2>Measurements</h2>
${table(report)}
</body></html>
`;
}

/**
 * --report report.html: one self-contained file (inline CSS and SVG, no scripts, no links) with
 * throughput vs load per batch size and latency percentiles vs throughput, plus the table.
 */
import { settingLabel, type PerfReport } from '../report.js';
import { escapeXml, lineChart, type Series } from './svg-chart.js';

const ms = (us: number | undefined) => (us === undefined || !Number.isFinite(us) ? '–' : (us / 1000).toFixed(2));

export function formatHtml(report: PerfReport, generatedAt: Date): string {
  const batchSizes = [...new Set(report.rows.map((r) => r.batchSize))];
  const loadName = report.load === 'concurrency' ? 'concurrency' : 'request rate (req/s)';
  const throughputSeries: Series[] = batchSizes.map((b) => ({
    name: `batch ${b}`,
    points: report.rows.filter((r) => r.batchSize === b).map((r) => ({ x: r.concurrency ?? r.requestRate ?? 0, y: r.throughput })),
  }));
  const latencySeries: Series[] = batchSizes.flatMap((b) => (['p50', 'p90', 'p99'] as const).map((p) => ({
    name: `${batchSizes.length > 1 ? `b${b} ` : ''}${p}`,
    points: report.rows.filter((r) => r.batchSize === b).map((r) => ({ x: r.throughput, y: r.latencyUs[p] / 1000 })),
  })));
  const s = report.summary;
  const rows = report.rows.map((r) => `<tr><td>${r.batchSize}</td><td>${r.concurrency ?? r.requestRate}</td><td>${r.throughput.toFixed(1)}${r.clientSaturated ? ' *' : ''}</td>` +
    `<td>${ms(r.latencyUs.avg)}</td><td>${ms(r.latencyUs.p50)}</td><td>${ms(r.latencyUs.p90)}</td><td>${ms(r.latencyUs.p95)}</td><td>${ms(r.latencyUs.p99)}</td>` +
    `<td>${ms(r.server?.queueUs)}</td><td>${ms(r.server?.computeInputUs)}</td><td>${ms(r.server?.computeInferUs)}</td><td>${ms(r.server?.computeOutputUs)}</td></tr>`).join('\n');
  const threshold = s.latencyThresholdMs === undefined ? '' : s.bestUnderThreshold
    ? `<li>Best under ${s.latencyThresholdMs} ms (${s.latencyMetric}): <b>${escapeXml(settingLabel(s.bestUnderThreshold))}</b>, ${s.bestUnderThreshold.throughput.toFixed(1)} infer/s</li>`
    : `<li>No setting kept ${s.latencyMetric} latency under ${s.latencyThresholdMs} ms.</li>`;
  const saturated = s.clientSaturated.length === 0 ? '' : `<li>* The client saturated a core at ${escapeXml(s.clientSaturated.map(settingLabel).join('; '))}: those figures may be client-bound.</li>`;
  const title = `gebe perf: ${report.model.name} v${report.model.version}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}td,th{padding:3px 10px;text-align:right;border-bottom:1px solid #ddd}th{background:#f4f4f4}.charts{display:flex;flex-wrap:wrap;gap:1em}</style>
</head><body>
<h1>${escapeXml(title)}</h1>
<p>Target: ${escapeXml(report.target)} · load: ${escapeXml(loadName)} · generated ${escapeXml(generatedAt.toISOString())}</p>
${report.incomplete !== undefined ? `<p><b>Incomplete:</b> ${escapeXml(report.incomplete)}</p>\n` : ''}<ul><li>Best throughput: <b>${escapeXml(settingLabel(s.best))}</b>, ${s.best.throughput.toFixed(1)} infer/s at ${s.latencyMetric} ${ms(s.best.latencyUs)} ms</li>${threshold}${saturated}</ul>
<div class="charts">
${lineChart({ title: `Throughput vs ${loadName}`, xLabel: loadName, yLabel: 'inferences / s', series: throughputSeries })}
${lineChart({ title: 'Latency vs throughput', xLabel: 'inferences / s', yLabel: 'latency (ms)', series: latencySeries })}
</div>
<h2>Measurements</h2>
<table><thead><tr><th>batch</th><th>${report.load === 'concurrency' ? 'concurrency' : 'req/s'}</th><th>infer/s</th><th>avg ms</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>queue</th><th>compute input</th><th>compute infer</th><th>compute output</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}

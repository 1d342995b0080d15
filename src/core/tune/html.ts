/**
 * --report tune.html: the Pareto front (throughput vs p99) as a chart with every trial beside it,
 * and the trials as a table. Charts are perf's inline SVG (svg-chart), so the file opens offline.
 */
import { escapeXml, lineChart } from '../perf/reporters/svg-chart.js';
import { describeCandidate } from './candidate.js';
import { describeConstraints, describeObjective, type TuneReport } from './report.js';

const ms = (us: number) => (us / 1000).toFixed(2);

export function formatTuneHtml(report: TuneReport, generatedAt: Date): string {
  const ok = report.trials.filter((t) => !t.error);
  const front = ok.filter((t) => report.pareto.includes(t.key));
  const point = (t: (typeof ok)[number]) => ({ x: t.throughput, y: t.latencyUs.p99 / 1000 });
  const chart = lineChart({
    title: 'p99 latency vs throughput',
    xLabel: 'inferences / s',
    yLabel: 'p99 latency (ms)',
    series: [
      { name: 'Pareto front', points: front.map(point) },
      // One series per concurrency keeps each line among comparable trials.
      ...[...new Set(ok.map((t) => t.candidate.concurrency))].map((c) => ({ name: `trials, c=${c}`, points: ok.filter((t) => t.candidate.concurrency === c).map(point) })),
    ],
  });
  const rows = report.trials.map((t) => `<tr${report.pareto.includes(t.key) ? ' class="front"' : ''}><td style="text-align:left">${escapeXml(describeCandidate(t.candidate))}</td>` +
    `<td>${t.error ? 'failed' : t.throughput.toFixed(1)}</td><td>${t.error ? '–' : ms(t.latencyUs.p50)}</td><td>${t.error ? '–' : ms(t.latencyUs.p99)}</td><td style="text-align:left">${escapeXml(t.error ?? (report.pareto.includes(t.key) ? 'Pareto front' : ''))}</td></tr>`).join('\n');
  const verdict = report.winner
    ? `<p><b>Winner:</b> ${escapeXml(describeCandidate(report.winner.candidate))}: ${report.winner.throughput.toFixed(1)} infer/s, p99 ${ms(report.winner.latencyUs.p99)} ms${report.speedup !== undefined ? ` (${report.speedup.toFixed(2)}× the baseline)` : ''}</p>`
    : `<p><b>No trial meets the constraints.</b>${report.closest ? ` Closest: ${escapeXml(describeCandidate(report.closest.candidate))}, p99 ${ms(report.closest.latencyUs.p99)} ms, ${report.closest.throughput.toFixed(1)} infer/s.` : ''}</p>`;
  const title = `gebe tune: ${report.model.name} v${report.model.version}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}td,th{padding:3px 10px;text-align:right;border-bottom:1px solid #ddd}th{background:#f4f4f4}tr.front td{font-weight:bold}</style>
</head><body>
<h1>${escapeXml(title)}</h1>
<p>${escapeXml(report.search)} search · ${escapeXml(report.target)} · constraints: ${escapeXml(describeConstraints(report.constraints))} · objective: ${escapeXml(describeObjective(report.objective))} · generated ${escapeXml(generatedAt.toISOString())}</p>
${verdict}
${chart}
<h2>Trials</h2>
<table><thead><tr><th style="text-align:left">settings</th><th>infer/s</th><th>p50 ms</th><th>p99 ms</th><th></th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}

/** The compare report as a terminal table: one row per output, then the worst elements of each. */
import type { ChalkInstance } from 'chalk';
import { formatMetric, formatPercent, formatValue, type CompareReport } from './report.js';

const HEAD = ['output', 'max abs', 'mean abs', 'max rel', 'cosine', 'rmse', 'outside', 'result'];

export function formatCompareTable(report: CompareReport, c: ChalkInstance): string {
  const t = report.thresholds;
  let out = `${c.bold(report.model.name)} v${report.model.version}: ${report.model_target}\n`;
  out += `  against ${report.reference}\n`;
  out += `  ${report.samples.length} sample${report.samples.length === 1 ? '' : 's'}; atol ${t.atol}, rtol ${t.rtol}, outside allowed ${formatPercent(t.maxOutsideShare)}${t.minCosine !== undefined ? `, cosine ≥ ${t.minCosine}` : ''}\n\n`;
  const rows = report.outputs.map((o) => {
    const m = o.metrics;
    const cells = m
      ? [formatMetric(m.maxAbsError), formatMetric(m.meanAbsError), formatMetric(m.maxRelError), formatMetric(m.cosineSimilarity), formatMetric(m.rmse), formatPercent(m.outsideShare)]
      : ['–', '–', '–', '–', '–', '–'];
    return [o.name, ...cells, o.pass ? 'pass' : 'FAIL'];
  });
  const widths = HEAD.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((s, i) => (i === 0 ? s.padEnd(widths[i]!) : s.padStart(widths[i]!))).join('  ');
  out += `${c.dim(line(HEAD))}\n`;
  for (const r of rows) {
    const text = line(r);
    out += `${r.at(-1) === 'pass' ? text : c.red(text)}\n`;
  }
  for (const o of report.outputs) {
    if (o.pass && (o.metrics?.worst.length ?? 0) === 0) continue;
    out += `\n${c.bold(o.name)}${o.pass ? '' : c.red(' FAIL')}\n`;
    for (const reason of o.reasons) out += `  ${reason}\n`;
    const worst = o.metrics?.worst ?? [];
    if (worst.length > 0) out += `  worst elements:\n`;
    for (const w of worst) {
      out += `    ${w.sample} [${w.coords.join(', ')}]  got ${formatValue(w.actual)}  expected ${formatValue(w.expected)}  |error| ${formatMetric(w.absError)}\n`;
    }
  }
  out += `\n${report.pass ? c.green('every output is within the thresholds') : c.red(`${report.outputs.filter((o) => !o.pass).length} of ${report.outputs.length} outputs outside the thresholds: ${report.outputs.filter((o) => !o.pass).map((o) => o.name).join(', ')}`)}\n`;
  return out;
}

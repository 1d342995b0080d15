/**
 * --report compare.html: one self-contained file (inline CSS and SVG, no scripts) with the
 * metrics table and, per output, a histogram of absolute errors by decade and its worst elements.
 */
import { escapeXml } from '../perf/reporters/svg-chart.js';
import type { ErrorHistogram } from './metrics.js';
import { formatMetric, formatPercent, formatValue, type CompareReport } from './report.js';

const W = 640;
const H = 260;
const PAD = { left: 60, right: 16, top: 30, bottom: 56 };

function binLabel(edges: number[], i: number): string {
  if (i === 0) return '0';
  if (edges[i] === Infinity) return `>${formatMetric(edges[i - 1]!)}`;
  return `≤${formatMetric(edges[i]!)}`;
}

/** A bar chart of the error histogram (counts on a linear axis; each bar says its count). */
export function histogramSvg(title: string, histogram: ErrorHistogram): string {
  const n = histogram.counts.length;
  const max = Math.max(1, ...histogram.counts);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const bw = plotW / n;
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeXml(title)}">`];
  parts.push(`<text x="${W / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(title)}</text>`);
  parts.push(`<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}" stroke="#333"/>`);
  histogram.counts.forEach((count, i) => {
    const h = (count / max) * plotH;
    const x = PAD.left + i * bw;
    const y = PAD.top + plotH - h;
    parts.push(`<rect x="${(x + 2).toFixed(1)}" y="${y.toFixed(1)}" width="${(bw - 4).toFixed(1)}" height="${h.toFixed(1)}" fill="${i === 0 ? '#2ca02c' : '#1f77b4'}"><title>${escapeXml(`${binLabel(histogram.edges, i)}: ${count}`)}</title></rect>`);
    if (count > 0) parts.push(`<text x="${(x + bw / 2).toFixed(1)}" y="${(y - 3).toFixed(1)}" text-anchor="middle" font-size="10">${count}</text>`);
    parts.push(`<text x="${(x + bw / 2).toFixed(1)}" y="${PAD.top + plotH + 14}" text-anchor="middle" font-size="10">${escapeXml(binLabel(histogram.edges, i))}</text>`);
  });
  parts.push(`<text x="${PAD.left + plotW / 2}" y="${H - 10}" text-anchor="middle" font-size="12">|actual − expected|</text>`);
  parts.push(`<text transform="translate(16 ${PAD.top + plotH / 2}) rotate(-90)" text-anchor="middle" font-size="12">elements</text>`);
  parts.push('</svg>');
  return parts.join('\n');
}

export function formatCompareHtml(report: CompareReport, generatedAt: Date): string {
  const title = `gebe compare: ${report.model.name} v${report.model.version}`;
  const t = report.thresholds;
  const cell = (v: number | undefined) => `<td>${v === undefined ? '–' : escapeXml(formatMetric(v))}</td>`;
  const rows = report.outputs.map((o) => `<tr><td style="text-align:left">${escapeXml(o.name)}</td>${cell(o.metrics?.maxAbsError)}${cell(o.metrics?.meanAbsError)}${cell(o.metrics?.maxRelError)}` +
    `${cell(o.metrics?.cosineSimilarity)}${cell(o.metrics?.rmse)}<td>${o.metrics ? formatPercent(o.metrics.outsideShare) : '–'}</td><td class="${o.pass ? 'pass' : 'fail'}">${o.pass ? 'pass' : 'FAIL'}</td></tr>`).join('\n');
  const sections = report.outputs.map((o) => {
    const worst = (o.metrics?.worst ?? []).map((w) => `<tr><td>${escapeXml(w.sample)}</td><td>[${w.coords.join(', ')}]</td><td>${formatValue(w.actual)}</td><td>${formatValue(w.expected)}</td>${cell(w.absError)}</tr>`).join('\n');
    return `<h2>${escapeXml(o.name)} <span class="${o.pass ? 'pass' : 'fail'}">${o.pass ? 'pass' : 'FAIL'}</span></h2>
${o.reasons.map((r) => `<p>${escapeXml(r)}</p>`).join('\n')}
${o.metrics ? histogramSvg(`${o.name}: absolute errors over ${o.metrics.elements} elements`, o.metrics.histogram) : ''}
${worst ? `<table><thead><tr><th>sample</th><th>index</th><th>actual</th><th>expected</th><th>|error|</th></tr></thead><tbody>\n${worst}\n</tbody></table>` : ''}`;
  }).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}td,th{padding:3px 10px;text-align:right;border-bottom:1px solid #ddd}th{background:#f4f4f4}.pass{color:#2ca02c}.fail{color:#d62728;font-weight:bold}</style>
</head><body>
<h1>${escapeXml(title)}</h1>
<p>${escapeXml(report.model_target)} against ${escapeXml(report.reference)} · ${report.samples.length} samples · atol ${t.atol}, rtol ${t.rtol}, outside allowed ${formatPercent(t.maxOutsideShare)}${t.minCosine !== undefined ? `, cosine ≥ ${t.minCosine}` : ''} · generated ${escapeXml(generatedAt.toISOString())}</p>
<p class="${report.pass ? 'pass' : 'fail'}">${report.pass ? 'Every output is within the thresholds.' : 'Some outputs are outside the thresholds.'}</p>
<table><thead><tr><th style="text-align:left">output</th><th>max abs</th><th>mean abs</th><th>max rel</th><th>cosine</th><th>rmse</th><th>outside</th><th>result</th></tr></thead>
<tbody>
${rows}
</tbody></table>
${sections}
</body></html>
`;
}

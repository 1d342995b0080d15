/**
 * Small line- and stacked-bar-chart renderers producing inline SVG (no scripts, no external assets),
 * so the HTML report opens offline in any browser. Series differ in colour and also in dash and
 * marker shape, so they stay apart in grey print and for colour-blind readers.
 */
export interface Series {
  name: string;
  points: Array<{ x: number; y: number }>;
}

export interface BarStack {
  label: string;
  /** One value per segment, in the order of the chart's segments; non-finite values count as 0. */
  values: number[];
}

export interface BarChartSpec {
  title: string;
  yLabel: string;
  segments: string[];
  bars: BarStack[];
}

export interface ChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
}

/** Okabe & Ito's colour-blind-safe palette. */
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3'];
const MARKERS = ['circle', 'square', 'triangle', 'diamond'] as const;
const W = 640;
const H = 360;
const PAD = { left: 70, right: 150, top: 36, bottom: 48 };

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Round axis maxima up to 1, 2 or 5 × 10^k so ticks land on readable numbers. */
function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function tickLabel(v: number): string {
  if (v >= 1000) return `${+(v / 1000).toFixed(1)}k`;
  return String(+v.toFixed(2));
}

function marker(kind: (typeof MARKERS)[number], x: number, y: number, color: string, title: string): string {
  const t = `<title>${escapeXml(title)}</title>`;
  const f = (v: number) => v.toFixed(1);
  if (kind === 'circle') return `<circle cx="${f(x)}" cy="${f(y)}" r="3.5" fill="${color}">${t}</circle>`;
  if (kind === 'square') return `<rect x="${f(x - 3.5)}" y="${f(y - 3.5)}" width="7" height="7" fill="${color}">${t}</rect>`;
  if (kind === 'triangle') return `<polygon points="${f(x)},${f(y - 4.5)} ${f(x - 4)},${f(y + 3.5)} ${f(x + 4)},${f(y + 3.5)}" fill="${color}">${t}</polygon>`;
  return `<polygon points="${f(x)},${f(y - 4.5)} ${f(x - 4.5)},${f(y)} ${f(x)},${f(y + 4.5)} ${f(x + 4.5)},${f(y)}" fill="${color}">${t}</polygon>`;
}

function axes(parts: string[], spec: { title: string; yLabel: string }, xLabel: string, plotW: number, plotH: number, yMax: number, sy: (y: number) => number): void {
  parts.push(`<text x="${W / 2 - PAD.right / 2}" y="20" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(spec.title)}</text>`);
  for (let i = 0; i <= 5; i++) {
    const yv = (yMax * i) / 5;
    parts.push(`<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${sy(yv)}" y2="${sy(yv)}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${PAD.left - 6}" y="${sy(yv) + 4}" text-anchor="end" font-size="11">${tickLabel(yv)}</text>`);
  }
  parts.push(`<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${PAD.top + plotH}" stroke="#333"/>`);
  parts.push(`<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}" stroke="#333"/>`);
  parts.push(`<text x="${PAD.left + plotW / 2}" y="${H - 8}" text-anchor="middle" font-size="12">${escapeXml(xLabel)}</text>`);
  parts.push(`<text transform="translate(16 ${PAD.top + plotH / 2}) rotate(-90)" text-anchor="middle" font-size="12">${escapeXml(spec.yLabel)}</text>`);
}

export function lineChart(spec: ChartSpec): string {
  const all = spec.series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const xMax = niceMax(Math.max(...all.map((p) => p.x), 0));
  const yMax = niceMax(Math.max(...all.map((p) => p.y), 0));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const sx = (x: number) => PAD.left + (x / xMax) * plotW;
  const sy = (y: number) => PAD.top + plotH - (y / yMax) * plotH;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeXml(spec.title)}">`);
  axes(parts, spec, spec.xLabel, plotW, plotH, yMax, sy);
  for (let i = 0; i <= 5; i++) {
    const xv = (xMax * i) / 5;
    parts.push(`<text x="${sx(xv)}" y="${PAD.top + plotH + 16}" text-anchor="middle" font-size="11">${tickLabel(xv)}</text>`);
  }
  spec.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const dash = DASHES[i % DASHES.length]!;
    const shape = MARKERS[i % MARKERS.length]!;
    const pts = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
    const dashAttr = dash ? ` stroke-dasharray="${dash}"` : '';
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2"${dashAttr} points="${pts.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(' ')}"/>`);
    for (const p of pts) parts.push(marker(shape, sx(p.x), sy(p.y), color, `${s.name}: (${tickLabel(p.x)}, ${tickLabel(p.y)})`));
    const ly = PAD.top + 10 + i * 18;
    parts.push(`<line x1="${W - PAD.right + 8}" x2="${W - PAD.right + 32}" y1="${ly - 2}" y2="${ly - 2}" stroke="${color}" stroke-width="2"${dashAttr}/>`);
    parts.push(marker(shape, W - PAD.right + 20, ly - 2, color, s.name));
    parts.push(`<text x="${W - PAD.right + 38}" y="${ly + 2}" font-size="12">${escapeXml(s.name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** One stacked bar per entry (e.g. per setting), one segment per part of a whole (e.g. of a latency). */
export function stackedBarChart(spec: BarChartSpec): string {
  const known = (v: number) => (Number.isFinite(v) && v > 0 ? v : 0);
  const totals = spec.bars.map((b) => b.values.reduce((a, v) => a + known(v), 0));
  const yMax = niceMax(Math.max(0, ...totals));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom - 24;
  const sy = (y: number) => PAD.top + plotH - (y / yMax) * plotH;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeXml(spec.title)}">`);
  axes(parts, spec, '', plotW, plotH, yMax, sy);
  const slot = plotW / Math.max(1, spec.bars.length);
  const barW = Math.min(40, slot * 0.7);
  spec.bars.forEach((b, i) => {
    const x = PAD.left + slot * i + (slot - barW) / 2;
    let base = 0;
    b.values.forEach((v, k) => {
      const h = known(v);
      if (h === 0) return;
      parts.push(`<rect x="${x.toFixed(1)}" y="${sy(base + h).toFixed(1)}" width="${barW.toFixed(1)}" height="${(sy(base) - sy(base + h)).toFixed(1)}" fill="${PALETTE[k % PALETTE.length]}"><title>${escapeXml(`${b.label}: ${spec.segments[k]} ${tickLabel(h)}`)}</title></rect>`);
      base += h;
    });
    const cx = x + barW / 2;
    parts.push(`<text transform="translate(${cx.toFixed(1)} ${PAD.top + plotH + 12}) rotate(35)" font-size="10">${escapeXml(b.label)}</text>`);
  });
  spec.segments.forEach((name, k) => {
    const ly = PAD.top + 10 + k * 18;
    parts.push(`<rect x="${W - PAD.right + 12}" y="${ly - 8}" width="12" height="12" fill="${PALETTE[k % PALETTE.length]}"/>`);
    parts.push(`<text x="${W - PAD.right + 30}" y="${ly + 2}" font-size="12">${escapeXml(name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/**
 * A small line-chart renderer producing inline SVG (no scripts, no external assets), so the HTML
 * report opens offline in any browser.
 */
export interface Series {
  name: string;
  points: Array<{ x: number; y: number }>;
}

export interface ChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
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

export function lineChart(spec: ChartSpec): string {
  const all = spec.series.flatMap((s) => s.points);
  const xMax = niceMax(Math.max(...all.map((p) => p.x), 0));
  const yMax = niceMax(Math.max(...all.map((p) => p.y), 0));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const sx = (x: number) => PAD.left + (x / xMax) * plotW;
  const sy = (y: number) => PAD.top + plotH - (y / yMax) * plotH;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeXml(spec.title)}">`);
  parts.push(`<text x="${W / 2 - PAD.right / 2}" y="20" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(spec.title)}</text>`);
  for (let i = 0; i <= 5; i++) {
    const yv = (yMax * i) / 5;
    const xv = (xMax * i) / 5;
    parts.push(`<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${sy(yv)}" y2="${sy(yv)}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${PAD.left - 6}" y="${sy(yv) + 4}" text-anchor="end" font-size="11">${tickLabel(yv)}</text>`);
    parts.push(`<text x="${sx(xv)}" y="${PAD.top + plotH + 16}" text-anchor="middle" font-size="11">${tickLabel(xv)}</text>`);
  }
  parts.push(`<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${PAD.top + plotH}" stroke="#333"/>`);
  parts.push(`<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}" stroke="#333"/>`);
  parts.push(`<text x="${PAD.left + plotW / 2}" y="${H - 8}" text-anchor="middle" font-size="12">${escapeXml(spec.xLabel)}</text>`);
  parts.push(`<text transform="translate(16 ${PAD.top + plotH / 2}) rotate(-90)" text-anchor="middle" font-size="12">${escapeXml(spec.yLabel)}</text>`);
  spec.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const pts = [...s.points].sort((a, b) => a.x - b.x);
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(' ')}"/>`);
    for (const p of pts) {
      parts.push(`<circle cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="3" fill="${color}"><title>${escapeXml(`${s.name}: (${tickLabel(p.x)}, ${tickLabel(p.y)})`)}</title></circle>`);
    }
    const ly = PAD.top + 10 + i * 18;
    parts.push(`<rect x="${W - PAD.right + 12}" y="${ly - 8}" width="12" height="12" fill="${color}"/>`);
    parts.push(`<text x="${W - PAD.right + 30}" y="${ly + 2}" font-size="12">${escapeXml(s.name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

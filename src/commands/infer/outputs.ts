/**
 * Output tensors as plain data (values decoded from their bytes, top-k classes with labels) and
 * as text. The text is built from the same data `--json` prints.
 */
import type { InferTensor } from '../../core/executor/types.js';
import { halfToNumber, typedView } from '../../core/kserve/datatypes.js';
import { splitBytesElements } from '../../core/kserve/codec/bytes-elements.js';

export interface RankedClass {
  index: number;
  label?: string;
  score: number;
  /** softmax over the item's scores: a probability when the scores are logits. */
  softmax: number;
}

export interface OutputReport {
  name: string;
  datatype: string;
  shape: number[];
  data: Array<number | string | boolean>;
  /** Per batch item, when the output has a label file. */
  topK?: RankedClass[][];
}

export function decodeValues(tensor: InferTensor): Array<number | string | boolean> {
  if (tensor.datatype === 'BYTES') return splitBytesElements(tensor.data).map((e) => new TextDecoder().decode(e));
  const view = typedView(tensor.datatype, tensor.data);
  if (tensor.datatype === 'BOOL') return Array.from(view as Uint8Array, (v) => v !== 0);
  if (tensor.datatype === 'FP16' || tensor.datatype === 'BF16') return Array.from(view as Uint16Array, (bits) => halfToNumber(bits, tensor.datatype === 'BF16'));
  return Array.from(view as ArrayLike<number | bigint>, (v) => Number(v));
}

export function reportOutput(tensor: InferTensor, labels: string[] | undefined, topK: number, batched: boolean): OutputReport {
  const data = decodeValues(tensor);
  const report: OutputReport = { name: tensor.name, datatype: tensor.datatype, shape: tensor.shape, data };
  if (labels && data.length > 0 && typeof data[0] === 'number') {
    const items = batched ? Math.max(1, tensor.shape[0] ?? 1) : 1;
    const per = data.length / items;
    report.topK = [];
    for (let b = 0; b < items; b++) report.topK.push(rank(data.slice(b * per, (b + 1) * per) as number[], labels, topK));
  }
  return report;
}

function rank(scores: number[], labels: string[], k: number): RankedClass[] {
  const max = Math.max(...scores);
  const exps = scores.map((s) => Math.exp(s - max));
  const total = exps.reduce((a, b) => a + b, 0);
  return scores
    .map((score, index) => ({ index, label: labels[index], score, softmax: exps[index]! / total }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, k);
}

const SHOWN_VALUES = 16;

export function formatReports(reports: OutputReport[]): string {
  let out = '';
  for (const r of reports) {
    out += `${r.name} ${r.datatype} [${r.shape.join(', ')}]\n`;
    const shown = r.data.slice(0, SHOWN_VALUES).map(formatValue).join(', ');
    out += `  [${shown}${r.data.length > SHOWN_VALUES ? `, … (${r.data.length} values)` : ''}]\n`;
    r.topK?.forEach((classes, item) => {
      const prefix = r.topK!.length > 1 ? `  item ${item} top ${classes.length}:` : `  top ${classes.length}:`;
      out += `${prefix}\n`;
      for (const c of classes) {
        out += `    ${c.label !== undefined ? `"${c.label}"` : '(no label)'}  index ${c.index}  score ${formatValue(c.score)}  softmax ${c.softmax.toFixed(4)}\n`;
      }
    });
  }
  return out;
}

function formatValue(v: number | string | boolean): string {
  if (typeof v !== 'number') return JSON.stringify(v);
  return Number.isInteger(v) ? String(v) : v.toPrecision(5);
}


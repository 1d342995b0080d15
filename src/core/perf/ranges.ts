/**
 * Parsing of perf_analyzer-style level ranges (`1:16`, `1:16:2`, `1,2,4,8`), batch-size lists and
 * `--shape name:d1,d2`. Every bad value is a one-line UsageError that shows the fix.
 */
import { UsageError } from '../../errors.js';

export interface LevelSpec {
  /** The flag as the user wrote it, for messages: `--concurrency`. */
  flag: string;
  /** Whether fractional values are allowed (request rates) or only whole numbers (concurrency). */
  integer: boolean;
  /** Example used in messages. */
  example: string;
}

export const CONCURRENCY_SPEC: LevelSpec = { flag: '--concurrency', integer: true, example: '1:16' };
export const REQUEST_RATE_SPEC: LevelSpec = { flag: '--request-rate-range', integer: false, example: '100:400:100' };

function parseNumber(spec: LevelSpec, text: string, whole: string, role: string): number {
  const pattern = spec.integer ? /^\d+$/ : /^\d+(\.\d+)?$/;
  if (!pattern.test(text.trim())) {
    const kind = spec.integer ? 'a whole number' : 'a number';
    throw new UsageError(`${spec.flag} "${whole}": ${role} "${text}" is not ${kind}; write start:end[:step] or a list, e.g. ${spec.example}`);
  }
  return Number(text);
}

/**
 * `start:end[:step]` (perf_analyzer's form; `start` alone means one level) or a comma list.
 * Levels are returned in the order the user asked for them.
 */
export function parseLevels(spec: LevelSpec, text: string): number[] {
  const whole = text.trim();
  if (whole === '') throw new UsageError(`${spec.flag} is empty; give start:end[:step] or a list, e.g. ${spec.example}`);
  if (whole.includes(',')) {
    const values = whole.split(',').map((part, i) => parseNumber(spec, part, whole, `item ${i + 1}`));
    for (const v of values) {
      if (v <= 0) throw new UsageError(`${spec.flag} "${whole}": every value must be at least ${spec.integer ? 1 : 'above 0'}; e.g. ${spec.example}`);
    }
    return values;
  }
  const parts = whole.split(':');
  if (parts.length > 3) throw new UsageError(`${spec.flag} "${whole}": expected start:end[:step], got ${parts.length} parts; e.g. ${spec.example}`);
  const start = parseNumber(spec, parts[0]!, whole, 'start');
  const end = parts[1] === undefined ? start : parseNumber(spec, parts[1], whole, 'end');
  const step = parts[2] === undefined ? 1 : parseNumber(spec, parts[2], whole, 'step');
  if (start <= 0) {
    const fixed = `${spec.integer ? 1 : 1}:${Math.max(end, 1)}${parts[2] ? `:${parts[2]}` : ''}`;
    throw new UsageError(`${spec.flag} "${whole}": start must be at least 1 (a level of 0 sends nothing); use ${fixed}`);
  }
  if (end < start) {
    throw new UsageError(`${spec.flag} "${whole}": start ${start} is greater than end ${end}; the range counts up, so write ${end}:${start}${parts[2] ? `:${parts[2]}` : ''}`);
  }
  if (step <= 0) throw new UsageError(`${spec.flag} "${whole}": step must be at least 1; e.g. ${start}:${end}:1`);
  const levels: number[] = [];
  // Stepping by repeated addition would drift for fractional rates; index from start instead.
  for (let i = 0; start + i * step <= end + 1e-9; i++) levels.push(roundLevel(start + i * step));
  return levels;
}

/** A level as reports show it: to the millionth, so 0.1 steps and computed rates print short. */
export function roundLevel(v: number): number {
  return Math.round(v * 1e6) / 1e6;
}

/** `-b 8` or `-b 1,4,8,16`: whole numbers of at least 1, in the order given, without duplicates. */
export function parseBatchSizes(text: string): number[] {
  const whole = text.trim();
  const values = whole.split(',').map((part, i) => {
    if (!/^\d+$/.test(part.trim())) {
      throw new UsageError(`-b/--batch-size "${whole}": "${part}" is not a whole number; give one batch size or a list, e.g. 1,4,8`);
    }
    const v = Number(part);
    if (v < 1) throw new UsageError(`-b/--batch-size "${whole}": item ${i + 1} is 0; batch sizes start at 1, e.g. 1,4,8`);
    return v;
  });
  return [...new Set(values)];
}

/** `--shape name:d1,d2` (repeatable): the shape of one input without the batch dimension. */
export function parseShapes(texts: string[]): Record<string, number[]> {
  const shapes: Record<string, number[]> = {};
  for (const text of texts) {
    const colon = text.lastIndexOf(':');
    if (colon <= 0) throw new UsageError(`--shape "${text}": expected name:d1,d2,... such as INPUT0:3,224,224`);
    const name = text.slice(0, colon);
    const dimsText = text.slice(colon + 1);
    const dims = dimsText.split(',').map((d) => {
      if (!/^\d+$/.test(d.trim()) || Number(d) < 1) {
        throw new UsageError(`--shape "${text}": dim "${d}" is not a whole number of at least 1; e.g. ${name}:3,224,224`);
      }
      return Number(d);
    });
    if (shapes[name]) throw new UsageError(`--shape is given twice for input "${name}"; keep one`);
    shapes[name] = dims;
  }
  return shapes;
}

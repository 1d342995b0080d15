/**
 * The GE backend's string-valued options: `graph.ge.inputShape` ("image:-1,3,224,224;mask:-1,4")
 * and `graph.ge.dynamicDims` (gears: one value per -1 in inputShape, gears separated by ';').
 */
import type { ModelConfig } from '../config/model-config.js';
import { parameter } from './helpers.js';

export interface ShapeEntry {
  name: string;
  dims: number[];
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export function parseInputShape(text: string): Parsed<ShapeEntry[]> {
  const entries: ShapeEntry[] = [];
  for (const part of text.split(';')) {
    if (part.trim() === '') return { ok: false, message: `empty entry in "${text}" (entries are name:dims separated by ';')` };
    const colon = part.lastIndexOf(':');
    if (colon <= 0) return { ok: false, message: `"${part}" is not of the form name:d1,d2,...` };
    const name = part.slice(0, colon).trim();
    const dimsText = part.slice(colon + 1).trim();
    const dims: number[] = [];
    for (const d of dimsText.split(',')) {
      if (!/^(-1|\d+)$/.test(d.trim())) return { ok: false, message: `dim "${d}" of "${name}" is not an integer or -1` };
      dims.push(Number(d));
    }
    entries.push({ name, dims });
  }
  return { ok: true, value: entries };
}

export function parseDynamicDims(text: string): Parsed<number[][]> {
  const gears: number[][] = [];
  for (const gear of text.split(';')) {
    if (gear.trim() === '') return { ok: false, message: `empty gear in "${text}" (gears are separated by ';', values in a gear by ',')` };
    const values: number[] = [];
    for (const v of gear.split(',')) {
      if (!/^[1-9]\d*$/.test(v.trim())) return { ok: false, message: `gear value "${v}" in "${gear}" is not a positive integer` };
      values.push(Number(v));
    }
    gears.push(values);
  }
  return { ok: true, value: gears };
}

export interface Gears {
  shape: ShapeEntry[];
  gears: number[][];
  /** Batch sizes the gears compile, when every gear gives all batch (axis 0) dims one value. */
  batchSizes: number[] | undefined;
}

const gearsCache = new WeakMap<ModelConfig, Gears | null>();

/** The gears a GE config compiles, when both options are present and well-formed (cached per config). */
export function gearsOf(config: ModelConfig): Gears | undefined {
  let gears = gearsCache.get(config);
  if (gears === undefined) {
    gears = computeGears(config) ?? null;
    gearsCache.set(config, gears);
  }
  return gears ?? undefined;
}

function computeGears(config: ModelConfig): Gears | undefined {
  const shapeText = parameter(config, 'graph.ge.inputShape');
  const dimsText = parameter(config, 'graph.ge.dynamicDims');
  if (shapeText === undefined || dimsText === undefined) return undefined;
  const shape = parseInputShape(shapeText);
  const dims = parseDynamicDims(dimsText);
  if (!shape.ok || !dims.ok) return undefined;
  const slots: boolean[] = []; // for each -1 in order: is it axis 0?
  for (const e of shape.value) e.dims.forEach((d, axis) => d === -1 && slots.push(axis === 0));
  if (dims.value.some((g) => g.length !== slots.length)) return undefined;
  let batchSizes: number[] | undefined = [];
  if (!slots.includes(true)) batchSizes = undefined;
  else {
    for (const gear of dims.value) {
      const values = new Set(gear.filter((_, i) => slots[i]));
      if (values.size !== 1) {
        batchSizes = undefined;
        break;
      }
      batchSizes.push([...values][0]!);
    }
  }
  return { shape: shape.value, gears: dims.value, batchSizes };
}

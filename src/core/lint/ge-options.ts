/**
 * The GE backend's string-valued options: `graph.ge.inputShape` ("image:-1,3,224,224;mask:-1,4")
 * and `graph.ge.dynamicDims` (gears: one value per -1 in inputShape, gears separated by ';').
 */
import type { ModelConfig } from '../config/model-config.js';
import { parseDynamicDims, parseInputShape, type ShapeEntry } from '../atc/ge-parameters.js';
import { parameter } from './helpers.js';

export { dynamicDimCount, parseDynamicDims, parseInputShape, type ShapeEntry } from '../atc/ge-parameters.js';

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

/**
 * The GE backend's string-valued shape options, parsed once for every reader (the lint rules and
 * `gebe convert`): `graph.ge.inputShape` ("image:-1,3,224,224;mask:-1,4") and
 * `graph.ge.dynamicDims` (gears: one value per -1 in inputShape, gears separated by ';').
 */

export const INPUT_SHAPE_KEY = 'graph.ge.inputShape';
export const DYNAMIC_DIMS_KEY = 'graph.ge.dynamicDims';

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
      if (!/^(-1|[1-9]\d*)$/.test(d.trim())) return { ok: false, message: `dim "${d}" of "${name}" is not a positive integer or -1` };
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


/** How many dims of a shape are -1: the number of values every gear must give. */
export function dynamicDimCount(entries: readonly ShapeEntry[]): number {
  return entries.reduce((n, e) => n + e.dims.filter((d) => d === -1).length, 0);
}

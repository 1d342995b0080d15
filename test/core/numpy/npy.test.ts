import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatNpy, parseNpy } from '../../../src/core/numpy/npy.js';
import { decodeValues } from '../../../src/commands/infer/outputs.js';
import { repoRoot } from '../executor/fake-acl.js';

const dir = path.join(repoRoot, 'fixtures/numpy');
const expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Record<string, { shape: number[]; values: Array<number | boolean> }>;
const read = (name: string) => fs.readFileSync(path.join(dir, `${name}.npy`));

describe('.npy files NumPy wrote', () => {
  for (const [name, want] of Object.entries(expected)) {
    it(`reads ${name} as NumPy does`, () => {
      const array = parseNpy(read(name), `${name}.npy`);
      expect(array.shape).toEqual(want.shape);
      const values = decodeValues({ name, datatype: array.datatype, shape: array.shape, data: array.data });
      if (array.datatype === 'FP16') values.forEach((v, i) => expect(v).toBeCloseTo(want.values[i] as number, 6));
      else expect(values).toEqual(want.values);
    });
  }

  it('writes the bytes NumPy writes (version 1.0, little-endian)', () => {
    for (const name of ['f4-2x3', 'f8-scalar', 'f2-4', 'bool-2x2', 'u1-empty', 'i8-1']) {
      expect(formatNpy(parseNpy(read(name), name)).equals(read(name)), name).toBe(true);
    }
  });

  it('byte-swaps big-endian files and writes them little-endian', () => {
    const array = parseNpy(read('i4-big-endian'), 'x');
    expect(Array.from(new Int32Array(array.data.buffer, array.data.byteOffset, 3))).toEqual([1, -2, 70000]);
    expect(formatNpy(array).toString('latin1')).toContain("'descr': '<i4'");
  });

  it('refuses Fortran order, object arrays, truncated data and non-npy files with the file named', () => {
    expect(() => parseNpy(read('f4-fortran'), 'f.npy')).toThrow('f.npy is in Fortran order; save it with numpy.save(file, numpy.ascontiguousarray(a))');
    expect(() => parseNpy(read('object'), 'o.npy')).toThrow("o.npy holds dtype '|O'");
    const cut = read('f4-2x3').subarray(0, 140);
    expect(() => parseNpy(cut, 'c.npy')).toThrow('c.npy has 12 data bytes but shape (2, 3) of <f4 needs 24');
    expect(() => parseNpy(Buffer.from('hello world'), 'h.npy')).toThrow('h.npy is not a .npy file');
    const huge = Buffer.from(read('f4-v2'));
    huge.writeUInt32LE(0xffffffff, 8);
    expect(() => parseNpy(huge, 'v2.npy')).toThrow('beyond the file');
  });

  it('round-trips every datatype and aligns data to 64 bytes', () => {
    const data = new Uint8Array(24).map((_, i) => i);
    for (const [datatype, size] of [['FP32', 4], ['INT64', 8], ['UINT16', 2], ['INT8', 1], ['FP64', 8]] as const) {
      const bytes = formatNpy({ datatype, shape: [24 / size], data });
      expect((bytes.byteLength - 24) % 64).toBe(0);
      expect(parseNpy(bytes, 'r')).toEqual({ datatype, shape: [24 / size], data });
    }
  });
});

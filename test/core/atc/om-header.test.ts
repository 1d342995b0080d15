import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectOm } from '../../../src/core/atc/om-header.js';
import { encodeOmHeader } from '../../../src/core/model/index.js';

describe('inspectOm', () => {
  it('reads the header of a file, and reports bad or missing files as data', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-om-'));
    const file = (name: string, bytes: Uint8Array | string) => {
      fs.writeFileSync(path.join(dir, name), bytes);
      return path.join(dir, name);
    };
    expect(inspectOm(file('m.om', Buffer.concat([encodeOmHeader({ name: 'mnist', isDynamic: true }), Buffer.from('body')]))))
      .toMatchObject({ format: 'om', name: 'mnist', isDynamic: true });
    expect(inspectOm(file('short.om', 'IMOD'))).toEqual({ format: 'invalid', problem: 'the file has 4 bytes, fewer than the 256-byte OM header' });
    const wrong = encodeOmHeader({ name: 'x' });
    wrong.set(Buffer.from('NOPE'), 0);
    expect(inspectOm(file('wrong.om', wrong))).toEqual({ format: 'invalid', problem: 'the file does not start with the OM magic "IMOD" (found 0x4e4f5045)' });
    expect(inspectOm(file('zip.om', Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0])))).toEqual({ format: 'om2' });
    expect(inspectOm(path.join(dir, 'missing.om')).format).toBe('invalid');
    fs.rmSync(dir, { recursive: true });
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOmHeader, inspectOm, parseOmHeader } from '../../../src/core/atc/om-header.js';

describe('OM header', () => {
  it('reads magic, name, dynamic flag and lengths from a GE-layout header', () => {
    const header = parseOmHeader(buildOmHeader({ name: 'mnist', isUnknownModel: true, length: 1234, platformVersion: '7.0' }));
    expect(header).toMatchObject({ format: 'om', headSize: 256, name: 'mnist', isUnknownModel: true, length: 1234, platformVersion: '7.0', modelLength: 1234n });
  });

  it('reports a wrong magic, a short file, a missing file, and recognises OM2 archives', () => {
    const bad = buildOmHeader({ name: 'x', isUnknownModel: false, length: 0 });
    bad.write('NOPE', 0, 'latin1');
    expect(parseOmHeader(bad)).toEqual({ format: 'invalid', problem: 'magic is "NOPE" (0x45504f4e), expected "IMOD"' });
    expect(parseOmHeader(Buffer.from('IMOD'))).toEqual({ format: 'invalid', problem: '4 bytes, shorter than the 256-byte OM header' });
    expect(parseOmHeader(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0]))).toEqual({ format: 'om2' });
    const missing = inspectOm(path.join(os.tmpdir(), 'gebe-no-such-file.om'));
    expect(missing.format).toBe('invalid');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-om-'));
    fs.writeFileSync(path.join(dir, 'm.om'), Buffer.concat([buildOmHeader({ name: 'm', isUnknownModel: false, length: 3 }), Buffer.from('abc')]));
    expect(inspectOm(path.join(dir, 'm.om'))).toMatchObject({ format: 'om', name: 'm', isUnknownModel: false });
    fs.rmSync(dir, { recursive: true });
  });
});

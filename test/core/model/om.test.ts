import { describe, expect, it } from 'vitest';
import { encodeOmHeader, OmParseError, readOmHeader } from '../../../src/core/model/om.js';

describe('readOmHeader', () => {
  it('reads the fields at the offsets of the 256-byte header', () => {
    // Written by hand at the documented offsets, independently of encodeOmHeader.
    const bytes = new Uint8Array(300);
    const view = new DataView(bytes.buffer);
    bytes.set([0x49, 0x4d, 0x4f, 0x44]); // "IMOD"
    view.setUint32(4, 256, true);
    view.setUint32(8, 0x30000, true);
    view.setUint32(76, 1234, true);
    view.setUint8(82, 1);
    bytes.set(new TextEncoder().encode('resnet50'), 84);
    view.setUint32(116, 321, true);
    bytes.set(new TextEncoder().encode('Ascend910B1'), 160);
    view.setBigUint64(184, 987654321n, true);
    view.setUint8(193, 1);
    const h = readOmHeader(bytes);
    expect(h).toMatchObject({
      format: 'om', headSize: 256, version: 0x30000, length: 1234, modelType: 1, name: 'resnet50', ops: 321,
      platformVersion: 'Ascend910B1', modelLength: 987654321n, isDynamic: true, isEncrypted: false,
    });
  });

  it('round-trips the header the fixtures use', () => {
    expect(readOmHeader(encodeOmHeader({ name: 'm', isDynamic: false }))).toMatchObject({ format: 'om', name: 'm', isDynamic: false });
  });

  it('recognises OM2 (ZIP) files', () => {
    expect(readOmHeader(Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0, 0]))).toEqual({ format: 'om2' });
  });

  it('says clearly why a file is not an OM file', () => {
    expect(() => readOmHeader(new Uint8Array(10))).toThrow(new OmParseError('the file has 10 bytes, fewer than the 256-byte OM header'));
    const onnxLike = new Uint8Array(256);
    onnxLike.set([0x08, 0x08, 0x12, 0x04]);
    expect(() => readOmHeader(onnxLike)).toThrow(/does not start with the OM magic "IMOD" \(found 0x08081204\)/);
    const badHead = encodeOmHeader({ name: 'm' });
    new DataView(badHead.buffer).setUint32(4, 128, true);
    expect(() => readOmHeader(badHead)).toThrow(/headsize 128/);
  });
});

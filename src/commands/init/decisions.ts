/**
 * What `gebe init --from` cannot decide for the user: input dims the ONNX model leaves free. Triton
 * and gebe's CPU engine run them as -1, but ATC compiles fixed shapes, so a `ge` model needs a size
 * or gears for each before `gebe convert` (gebe validate reports GE_DYNAMIC_DIM_WITHOUT_GEARS until
 * then). The same lines go into the config as comments and to the terminal.
 */
import type { FreeDim } from './from-onnx.js';
import type { TensorSpec } from './render-config.js';

export function freeDimDecisions(free: readonly FreeDim[], inputs: readonly TensorSpec[], maxBatchSize: number, gears: readonly number[], backend: string): string[] {
  if (free.length === 0 || backend !== 'ge') return [];
  const named = free.map((f) => `"${f.input}" dims[${f.axis}]${f.symbol ? ` ("${f.symbol}")` : ''}`);
  const shape = inputs.map((t) => `${t.name}:${[...(maxBatchSize > 0 ? [-1] : []), ...t.dims].join(',')}`).join(';');
  // One value per -1 of the shape in order: the batch size for each batch dim, a size to choose for each free dim.
  const placeholder = (input: string, axis: number) => {
    const f = free.find((x) => x.input === input && x.axis === axis);
    return `<${f?.symbol ?? `${input}_${axis}`}>`;
  };
  const gear = (batch: number) => inputs.flatMap((t) => [
    ...(maxBatchSize > 0 ? [String(batch)] : []),
    ...t.dims.flatMap((d, axis) => (d === -1 ? [placeholder(t.name, axis)] : [])),
  ]).join(',');
  const example = (maxBatchSize > 0 ? gears : [0]).map(gear).join(';');
  return [
    `Before \`gebe convert\`: the model leaves ${named.join(', ')} free (-1 below).`,
    'ATC compiles fixed shapes: write the size you serve in dims, or compile gears for it with',
    `  parameters { key: "graph.ge.inputShape" value: { string_value: "${shape}" } }`,
    `  parameters { key: "graph.ge.dynamicDims" value: { string_value: "${example}" } }`,
    'with a size for each <…> (one value per -1 in each gear, gears separated by ";"; convert passes',
    'them to ATC as --dynamic_dims). Until then gebe validate reports GE_DYNAMIC_DIM_WITHOUT_GEARS.',
  ];
}

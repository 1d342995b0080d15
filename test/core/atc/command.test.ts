import { describe, expect, it } from 'vitest';
import { buildAtcCommand, formatCommand } from '../../../src/core/atc/command.js';
import type { ModelConfig } from '../../../src/core/config/model-config.js';
import { GebeError } from '../../../src/errors.js';

const mnist: ModelConfig = {
  name: 'mnist', backend: 'ge', max_batch_size: 16,
  input: [{ name: 'image', data_type: 'TYPE_FP32', format: 'FORMAT_NCHW', dims: [1, 28, 28] }],
  output: [{ name: 'logits', data_type: 'TYPE_FP32', dims: [10] }],
  dynamic_batching: { preferred_batch_size: [8, 4], max_queue_delay_microseconds: 500 },
};

const base = { configFile: 'repo/m/config.pbtxt', modelFile: '/r/m/1/model.onnx', outputBase: '/r/m/1/model', socVersion: 'Ascend310P3' };
const build = (config: ModelConfig, extra: Partial<typeof base> & { precisionMode?: string; log?: string } = {}) =>
  buildAtcCommand({ ...base, config, ...extra });

describe('buildAtcCommand', () => {
  it('derives the input shape and the gears (preferred ∪ max) from the config', () => {
    const cmd = build(mnist, { precisionMode: 'allow_mix_precision', log: 'error' });
    expect(cmd.args).toEqual([
      '--model=/r/m/1/model.onnx', '--framework=5', '--output=/r/m/1/model', '--input_shape=image:-1,1,28,28',
      '--input_format=NCHW', '--dynamic_batch_size=4,8,16', '--soc_version=Ascend310P3',
      '--precision_mode=allow_mix_precision', '--log=error',
    ]);
    expect(cmd.batchSizes).toEqual([4, 8, 16]);
    expect(cmd.omFile).toBe('/r/m/1/model.om');
  });

  it('compiles max_batch_size alone as the gear when no preferred sizes are given, and every input gets -1', () => {
    const cmd = build({ ...mnist, dynamic_batching: undefined, input: [...mnist.input!, { name: 'mask', data_type: 'TYPE_BOOL', dims: [28, 28] }] });
    expect(cmd.inputShape).toBe('image:-1,1,28,28;mask:-1,28,28');
    expect(cmd.args).toContain('--dynamic_batch_size=16');
  });

  it('builds a static command for max_batch_size 0 and uses reshape as the model shape', () => {
    const cmd = build({ name: 'm', backend: 'ge', max_batch_size: 0, input: [{ name: 'x', data_type: 'TYPE_FP32', format: 'FORMAT_NHWC', dims: [224 * 224, 3], reshape: { shape: [1, 224, 224, 3] } }] });
    expect(cmd.inputShape).toBe('x:1,224,224,3');
    expect(cmd.args).toContain('--input_format=NHWC');
    expect(cmd.args.some((a) => a.startsWith('--dynamic'))).toBe(false);
    expect(cmd.batchSizes).toBeUndefined();
  });

  it('takes graph.ge.inputShape and graph.ge.dynamicDims from parameters', () => {
    const params = (shape: string, dims: string) => ({ 'graph.ge.inputShape': { string_value: shape }, 'graph.ge.dynamicDims': { string_value: dims } });
    const batch = build({ ...mnist, parameters: params('image:-1,1,28,28', '1;2;4;8') });
    expect(batch.args).toContain('--dynamic_batch_size=1,2,4,8');
    const dims = build({ ...mnist, parameters: params('ids:-1,-1', '1,128;4,64') });
    expect(dims.args).toContain('--dynamic_dims=1,128;4,64');
    expect(dims.args).toContain('--input_format=ND');
    expect(dims.batchSizes).toBeUndefined();
  });

  it('refuses what ATC would get wrong, naming the config file and field', () => {
    const fail = (config: ModelConfig) => {
      try {
        build(config);
      } catch (err) {
        expect(err).toBeInstanceOf(GebeError);
        return (err as GebeError).message;
      }
      throw new Error('expected an error');
    };
    expect(fail({ ...mnist, input: [{ name: 'image', data_type: 'TYPE_FP32', dims: [1, -1, 28] }] }))
      .toBe('repo/m/config.pbtxt: input "image" has a variable dim (dims[1] = -1); ATC compiles fixed shapes, and no graph.ge.dynamicDims gear gives this dim a size');
    expect(fail({ ...mnist, parameters: { 'graph.ge.inputShape': { string_value: 'x:-1,-1' }, 'graph.ge.dynamicDims': { string_value: '1;2' } } }))
      .toContain('gear 1 "1" of graph.ge.dynamicDims has 1 value, but graph.ge.inputShape "x:-1,-1" has 2 -1 dims');
    expect(fail({ ...mnist, parameters: { 'graph.ge.inputShape': { string_value: 'x=1,2' } } })).toContain('parameters "graph.ge.inputShape" is malformed: "x=1,2" is not of the form name:d1,d2,...');
    expect(fail({ ...mnist, parameters: { 'graph.ge.dynamicDims': { string_value: '1;x' } } })).toContain('parameters "graph.ge.dynamicDims" is malformed');
    expect(fail({ ...mnist, parameters: { 'graph.ge.inputShape': { string_value: 'image:1,1,28,28' } } }))
      .toContain('fixes the batch dim of "image" (ATC\'s --dynamic_batch_size needs -1 there)');
    expect(fail({ ...mnist, parameters: { 'graph.ge.inputShape': { string_value: 'image:-1,1,-1,28' } } }))
      .toContain('frees a dim other than the batch of "image"');
    expect(fail({ ...mnist, input: [] })).toContain('no input entries');
    expect(fail({ name: 'm', backend: 'ge', max_batch_size: 0, parameters: { 'graph.ge.inputShape': { string_value: 'x:-1,3' } } }))
      .toContain('has -1 but the config gives no gears');
    expect(fail({ ...mnist, input: [mnist.input![0]!, { name: 'y', data_type: 'TYPE_FP32', format: 'FORMAT_NHWC', dims: [2, 2, 3] }] }))
      .toContain('inputs mix FORMAT_NCHW ("image") and FORMAT_NHWC ("y")');
  });
});

describe('the input format', () => {
  it('is ND for inputs that are not rank 4 (NCHW/NHWC describe images), NCHW or NHWC for rank-4 inputs', () => {
    const tokens = build({ name: 'bert', backend: 'ge', max_batch_size: 8, input: [{ name: 'ids', data_type: 'TYPE_INT64', dims: [128] }] });
    expect(tokens.args).toContain('--input_format=ND');
    expect(tokens.args).toContain('--input_shape=ids:-1,128');
    const seq = build({ name: 's', backend: 'ge', max_batch_size: 0, input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [1, 16, 8] }] });
    expect(seq.args).toContain('--input_format=ND');
    expect(build(mnist).args).toContain('--input_format=NCHW');
  });
});

describe('formatCommand', () => {
  it('quotes only what the shell would split', () => {
    expect(formatCommand('atc', ['--input_shape=a:1,2;b:3', '--model=/my models/m.onnx', '--framework=5']))
      .toBe("atc --input_shape='a:1,2;b:3' --model='/my models/m.onnx' --framework=5");
  });
});

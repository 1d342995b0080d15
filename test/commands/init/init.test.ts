import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import { memoryIO } from '../../../src/io.js';
import { runInit } from '../../../src/commands/init/run.js';
import { parseInitOptions } from '../../../src/commands/init/options.js';
import type { Prompter } from '../../../src/commands/init/prompter.js';
import { renderConfig } from '../../../src/commands/init/render-config.js';
import { loadTemplate, TEMPLATES_DIR } from '../../../src/commands/init/templates.js';
import { OnnxGraphBuilder } from '../../helpers/onnx-builder.js';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-init-'));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function gebe(args: string[], overrides: Parameters<typeof memoryIO>[0] = {}) {
  const io = memoryIO({ cwd: tmp, ...overrides });
  const code = await main(['node', 'gebe', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

const read = (...parts: string[]) => fs.readFileSync(path.join(tmp, ...parts), 'utf8');

/** A prompter that answers from a script and records the questions it was asked. */
function scriptedPrompter(answers: Record<string, string | number>): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const answer = (message: string) => {
    asked.push(message);
    const key = Object.keys(answers).find((k) => message.startsWith(k));
    if (key === undefined) throw new Error(`unexpected question: ${message}`);
    return answers[key]!;
  };
  return {
    asked,
    select: async (q) => answer(q.message) as never,
    number: async (q) => answer(q.message) as number,
    text: async (q) => {
      const value = String(answer(q.message));
      const verdict = q.validate(value);
      if (verdict !== true) throw new Error(`prompt rejected "${value}": ${verdict}`);
      return value;
    },
  };
}

describe('gebe init --yes (mnist template)', () => {
  it('writes the config, the trained model and labels, and prints the next steps', async () => {
    const r = await gebe(['init', 'mnist_classifier', '--yes']);
    expect(r.code).toBe(0);
    const dir = path.join(tmp, 'model_repository', 'mnist_classifier');
    expect(fs.readFileSync(path.join(dir, '1', 'model.onnx')).equals(fs.readFileSync(path.join(TEMPLATES_DIR, 'mnist', '1', 'model.onnx')))).toBe(true);
    expect(read('model_repository', 'mnist_classifier', 'labels.txt').trim().split('\n')).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    const config = read('model_repository', 'mnist_classifier', 'config.pbtxt');
    expect(config).toContain('name: "mnist_classifier"\n');
    expect(config).toContain('label_filename: "labels.txt"');
    expect(config).toContain('preferred_batch_size: [ 4, 8, 16 ]');
    expect(r.out).toContain('Created model_repository/mnist_classifier (template mnist)');
    // From a clone gebe is not on PATH: the next steps run the clone's own launcher.
    const launcher = `node ${path.resolve(import.meta.dirname, '..', '..', '..', 'bin', 'gebe.js')}`;
    expect(r.out).toContain(`  ${launcher} validate `);
    expect(r.out).toContain(`  ${launcher} serve `);
    expect(r.out).toMatch(/bin\/gebe\.js infer -m mnist_classifier --input \S+digit-7\.png/);
  });

  it('matches the committed templates/mnist/config.pbtxt apart from the name', async () => {
    const t = loadTemplate('mnist');
    const rendered = renderConfig({ name: 'mnist', ...t.defaults, header: t.header, inputs: t.inputs, outputs: t.outputs });
    expect(rendered).toBe(fs.readFileSync(path.join(TEMPLATES_DIR, 'mnist', 'config.pbtxt'), 'utf8'));
  });

  it('takes flags over the defaults and honours --model-repository (and the deprecated --repo)', async () => {
    const old = await gebe(['init', 'old', '--yes', '--repo', 'repo3']);
    expect(old.code).toBe(0);
    expect(old.err).toContain('warning: --repo is deprecated; use --model-repository');
    expect(fs.existsSync(path.join(tmp, 'repo3', 'old', 'config.pbtxt'))).toBe(true);
    expect((await gebe(['init', 'x', '--yes', '--repo', 'a', '--model-repository', 'b'])).code).toBe(2);
    const r = await gebe(['init', 'digits', '--yes', '--model-repository', 'repo2', '--max-batch-size', '32', '--preferred-batch-sizes', '16,8,32',
      '--max-queue-delay-us', '100', '--instance-count', '3']);
    expect(r.code).toBe(0);
    const config = read('repo2', 'digits', 'config.pbtxt');
    expect(config).toContain('max_batch_size: 32\n');
    expect(config).toContain('preferred_batch_size: [ 8, 16, 32 ]');
    expect(config).toContain('max_queue_delay_microseconds: 100\n');
    expect(config).toContain('count: 3\n');
    expect(r.out).toContain(' infer -m digits --model-repository repo2');
    expect(r.err).toBe('');
  });
});

describe('gebe init without a terminal', () => {
  it('never prompts: exits 2 naming --yes and the setting flags, and writes nothing', async () => {
    const r = await gebe(['init', 'mnist_classifier']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('not one here');
    expect(r.err).toContain('--yes');
    expect(r.err).toContain('--max-batch-size');
    expect(fs.existsSync(path.join(tmp, 'model_repository'))).toBe(false);
  });
});

describe('gebe init on a terminal', () => {
  it('asks for template, backend, batch sizes, delay and instances, and writes the answers', async () => {
    const prompter = scriptedPrompter({
      Template: 'blank', Backend: 'ge', max_batch_size: 4, 'Preferred batch sizes': '2,4', 'Max queue delay': 250, 'Instance count': 2,
    });
    const io = memoryIO({ cwd: tmp, stdinIsTTY: true, stdoutIsTTY: true });
    await runInit(parseInitOptions('skeleton', {}), { io, prompter: () => prompter });
    expect(prompter.asked).toHaveLength(6);
    const config = read('model_repository', 'skeleton', 'config.pbtxt');
    expect(config).toContain('max_batch_size: 4\n');
    expect(config).toContain('preferred_batch_size: [ 2, 4 ]');
    expect(config).toContain('max_queue_delay_microseconds: 250');
    expect(config).toContain('# parameters {');
  });

  it('does not ask what a flag already answered, and --yes asks nothing', async () => {
    const prompter = scriptedPrompter({ Backend: 'ge', 'Preferred batch sizes': '8', 'Max queue delay': 100, 'Instance count': 1 });
    const io = memoryIO({ cwd: tmp, stdinIsTTY: true, stdoutIsTTY: true });
    await runInit(parseInitOptions('m', { template: 'mnist', maxBatchSize: '8' }), { io, prompter: () => prompter });
    expect(prompter.asked.map((q) => q.split(' ')[0])).toEqual(['Backend', 'Preferred', 'Max', 'Instance']);
    await runInit(parseInitOptions('m2', { yes: true }), {
      io,
      prompter: () => {
        throw new Error('--yes must not create a prompter');
      },
    });
    expect(read('model_repository', 'm2', 'config.pbtxt')).toContain('max_batch_size: 16');
  });
});

describe('gebe init guards', () => {
  it('refuses to overwrite an existing model without --force, and replaces it with --force', async () => {
    expect((await gebe(['init', 'm', '--yes'])).code).toBe(0);
    fs.writeFileSync(path.join(tmp, 'model_repository', 'm', '1', 'stale.onnx'), 'old');
    const again = await gebe(['init', 'm', '--yes', '--template', 'blank']);
    expect(again.code).toBe(2);
    expect(again.err).toContain('model "m" already exists');
    expect(again.err).toContain('--force');
    const forced = await gebe(['init', 'm', '--yes', '--template', 'blank', '--force']);
    expect(forced.code).toBe(0);
    expect(fs.existsSync(path.join(tmp, 'model_repository', 'm', '1', 'stale.onnx'))).toBe(false);
    expect(read('model_repository', 'm', 'config.pbtxt')).toContain('name: "input"');
  });

  it.each([
    [['init', '../escape', '--yes'], 'invalid model name'],
    [['init', 'm', '--yes', '--template', 'resnet'], 'unknown template "resnet"'],
    [['init', 'm', '--yes', '--max-batch-size', 'many'], '--max-batch-size must be an integer >= 0, got "many"'],
    [['init', 'm', '--yes', '--instance-count', '0'], '--instance-count must be an integer >= 1'],
    [['init', 'm', '--yes', '--preferred-batch-sizes', '4,x'], '--preferred-batch-sizes must be a comma-separated list'],
    [['init', 'm', '--yes', '--max-batch-size', '8', '--preferred-batch-sizes', '4,16'], '--preferred-batch-sizes 16 exceed max_batch_size 8'],
    [['init', 'm', '--yes', '--from', 'x.onnx', '--template', 'mnist'], '--template and --from cannot be used together'],
    [['init', 'm', '--yes', '--max-queue-delay-us', '0'], '--max-queue-delay-us 0 with preferred batch sizes'],
  ])('rejects %j with a message naming the problem', async (args, message) => {
    const r = await gebe(args);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });

  it('turns max_batch_size 0 into a config without dynamic_batching', async () => {
    expect((await gebe(['init', 'm', '--yes', '--max-batch-size', '0'])).code).toBe(0);
    const config = read('model_repository', 'm', 'config.pbtxt');
    expect(config).toContain('max_batch_size: 0\n');
    expect(config).not.toContain('dynamic_batching');
  });
});

describe('gebe init --from model.onnx', () => {
  function writeModel(name: string, build: (b: OnnxGraphBuilder) => OnnxGraphBuilder): string {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, build(new OnnxGraphBuilder('g')).encode());
    return file;
  }

  it('writes names, datatypes and dims from the graph, splitting off a symbolic batch dim', async () => {
    writeModel('detector.onnx', (b) =>
      b.input('pixels', 'UINT8', ['N', 3, 'height', 'width'])
        .input('threshold', 'FLOAT', ['N'])
        .initializer('w', 'FLOAT', [1], [1])
        .node('Cast', ['pixels'], ['boxes'], { to: 1 })
        .node('Identity', ['threshold'], ['scores'])
        .output('boxes', 'FLOAT', [null, 3, 'height', 'width'])
        .output('scores', 'FLOAT', ['N']));
    const r = await gebe(['init', 'detector', '--yes', '--from', 'detector.onnx']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('(from detector.onnx)');
    const config = read('model_repository', 'detector', 'config.pbtxt');
    expect(config).toContain('max_batch_size: 16');
    expect(config).toMatch(/name: "pixels"\n {4}data_type: TYPE_UINT8\n {4}dims: \[ 3, -1, -1 \]/);
    expect(config).toMatch(/name: "threshold"\n {4}data_type: TYPE_FP32\n {4}dims: \[ 1 \]\n {4}reshape: \{ shape: \[ \] \}/);
    expect(config).toMatch(/name: "boxes"\n {4}data_type: TYPE_FP32\n {4}dims: \[ 3, -1, -1 \]/);
    expect(config).not.toContain('"w"');
    // ATC compiles fixed shapes: the free height and width are a decision, in the config and the output.
    expect(config).toContain('# Before `gebe convert`: the model leaves "pixels" dims[1] ("height"), "pixels" dims[2] ("width") free (-1 below).');
    expect(config).toContain('#   parameters { key: "graph.ge.dynamicDims" value: { string_value: "4,<height>,<width>,4;8,<height>,<width>,8;16,<height>,<width>,16" } }');
    expect(r.out).toContain('Decide: Before `gebe convert`: the model leaves "pixels" dims[1] ("height")');
    const v = await gebe(['validate']);
    expect(v.out).toContain('GE_DYNAMIC_DIM_WITHOUT_GEARS input "pixels" has a variable dim (dims[1] = -1)');
    // Filled in as the comment says, the config validates clean and converts with --dynamic_dims.
    const file = path.join(tmp, 'model_repository', 'detector', 'config.pbtxt');
    fs.appendFileSync(file, 'parameters { key: "graph.ge.inputShape" value: { string_value: "pixels:-1,3,-1,-1;threshold:-1" } }\n' +
      'parameters { key: "graph.ge.dynamicDims" value: { string_value: "4,224,224,4;8,224,224,8;16,224,224,16" } }\n');
    expect((await gebe(['validate'])).out).toMatch(/no problems/);
    const dry = await gebe(['convert', '--dry-run', '--soc-version', 'Ascend310P3']);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain("--input_shape='pixels:-1,3,-1,-1;threshold:-1' --input_format=ND --dynamic_dims='4,224,224,4;8,224,224,8;16,224,224,16'");
    expect(fs.readFileSync(path.join(tmp, 'model_repository', 'detector', '1', 'model.onnx')).equals(fs.readFileSync(path.join(tmp, 'detector.onnx')))).toBe(true);
  });

  it('uses max_batch_size 0 and full dims when a first dimension is fixed', async () => {
    writeModel('fixed.onnx', (b) => b.input('x', 'INT64', [1, 'seq']).node('Identity', ['x'], ['y']).output('y', 'INT64', [1, 'seq']));
    expect((await gebe(['init', 'fixed', '--yes', '--from', 'fixed.onnx'])).code).toBe(0);
    const config = read('model_repository', 'fixed', 'config.pbtxt');
    expect(config).toContain('max_batch_size: 0\n');
    expect(config).toMatch(/name: "x"\n {4}data_type: TYPE_INT64\n {4}dims: \[ 1, -1 \]/);
    expect(config).not.toContain('dynamic_batching');
    expect(config).toContain('"x" dims[1] ("seq") free');
    const forced = await gebe(['init', 'fixed2', '--yes', '--from', 'fixed.onnx', '--max-batch-size', '8']);
    expect(forced.code).toBe(2);
    expect(forced.err).toContain('fixed.onnx has a fixed first dimension');
  });

  it('names the file and tensor when the model cannot be described', async () => {
    fs.writeFileSync(path.join(tmp, 'junk.onnx'), 'this is not protobuf at all');
    const junk = await gebe(['init', 'j', '--yes', '--from', 'junk.onnx']);
    expect(junk.code).toBe(2);
    expect(junk.err).toMatch(/junk\.onnx (is not a valid ONNX model|has no graph outputs)/);
    const missing = await gebe(['init', 'j', '--yes', '--from', 'nope.onnx']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('cannot read ONNX model');
    // Patch the output's element type to COMPLEX64 (14), which has no Triton datatype.
    const model = new OnnxGraphBuilder('g').input('z', 'FLOAT', ['N', 2]).node('Identity', ['z'], ['o']).toModelObject() as {
      graph: { output: unknown[] };
    };
    model.graph.output = [{ name: 'o', type: { tensorType: { elemType: 14, shape: { dim: [{ dimParam: 'N' }] } } } }];
    const { onnxRoot } = await import('../../helpers/onnx-builder.js');
    const ModelProto = onnxRoot().lookupType('onnx.ModelProto');
    fs.writeFileSync(path.join(tmp, 'complex.onnx'), ModelProto.encode(ModelProto.fromObject(model)).finish());
    const complex = await gebe(['init', 'c', '--yes', '--from', 'complex.onnx']);
    expect(complex.code).toBe(2);
    expect(complex.err).toContain('complex.onnx: tensor "o" has ONNX element type 14');
  });
});

describe('what gebe init writes passes gebe validate with zero findings', () => {
  it('every template, --from, and the setting variations', async () => {
    for (const args of [
      ['init', 'mnist_classifier', '--yes'],
      ['init', 'skeleton', '--yes', '--template', 'blank'],
      ['init', 'unbatched', '--yes', '--max-batch-size', '0'],
      ['init', 'blank_unbatched', '--yes', '--template', 'blank', '--max-batch-size', '0'],
      ['init', 'tuned', '--yes', '--max-batch-size', '32', '--preferred-batch-sizes', '2,32', '--max-queue-delay-us', '50', '--instance-count', '4'],
      ['init', 'no_preferred', '--yes', '--preferred-batch-sizes', '', '--max-queue-delay-us', '0'],
      ['init', 'imported', '--yes', '--from', path.join(TEMPLATES_DIR, 'mnist', '1', 'model.onnx')],
    ]) {
      expect((await gebe(args)).code).toBe(0);
    }
    const r = await gebe(['validate']);
    expect(r.out).toContain('no problems (7 models, 7 config files checked)');
    expect(r.code).toBe(0);
  });
});

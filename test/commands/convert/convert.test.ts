import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import { memoryIO } from '../../../src/io.js';

// The stand-in `atc` and `npu-smi` are Node scripts: PATH needs them and node itself.
const fakeDir = path.resolve(__dirname, '../../helpers/fake-atc');
const nodeDir = path.dirname(process.execPath);

let tmp: string;
let record: string;
beforeEach(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-convert-'));
  record = path.join(tmp, 'atc-args.json');
  expect((await gebe(['init', 'mnist_classifier', '--yes'], { PATH: nodeDir })).code).toBe(0);
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function gebe(args: string[], env: NodeJS.ProcessEnv = { PATH: `${fakeDir}:${nodeDir}`, FAKE_ATC_RECORD: record }) {
  const io = memoryIO({ cwd: tmp, env });
  const code = await main(['node', 'gebe', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

const versionDir = () => path.join(tmp, 'model_repository', 'mnist_classifier', '1');

describe('gebe convert with a stand-in atc', () => {
  it('runs atc with the arguments derived from config.pbtxt and checks the .om header', async () => {
    const r = await gebe(['convert', '--soc-version', 'Ascend910B1', '--precision-mode', 'force_fp16']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(record, 'utf8'))).toEqual([
      `--model=${path.join(versionDir(), 'model.onnx')}`,
      '--framework=5',
      `--output=${path.join(versionDir(), 'model')}`,
      '--input_shape=image:-1,1,28,28',
      '--input_format=NCHW',
      '--dynamic_batch_size=4,8,16',
      '--soc_version=Ascend910B1',
      '--precision_mode=force_fp16',
    ]);
    const om = fs.readFileSync(path.join(versionDir(), 'model.om'));
    expect(om.subarray(0, 4).toString('latin1')).toBe('IMOD');
    expect(r.out).toContain(`converted mnist_classifier v1 → model_repository/mnist_classifier/1/model.om (${om.length} B, batch sizes 4, 8, 16)`);
    expect(r.out).toContain('header: IMOD, name "model", dynamic');
    expect(r.out).toContain('log: model_repository/mnist_classifier/1/atc.log');
    expect(r.out).toMatch(/next: node \S+bin\/gebe\.js warmup model_repository -m mnist_classifier/);
    expect(fs.readFileSync(path.join(versionDir(), 'atc.log'), 'utf8')).toContain('ATC run success, welcome to the next use.');
  });

  it('shows a spinner with the elapsed time on stderr when it is a terminal, and none otherwise', async () => {
    const io = memoryIO({ cwd: tmp, env: { PATH: `${fakeDir}:${nodeDir}` }, stderrIsTTY: true });
    expect(await main(['node', 'gebe', 'convert', '--soc-version', 'Ascend310P3'], io)).toBe(0);
    expect(io.err()).toMatch(/atc: compiling mnist_classifier v1 \(\d+\.\d s\)/);
    expect(io.err()).toMatch(/atc finished: mnist_classifier v1 \(\d+\.\d s\)\n$/);
    expect((await gebe(['convert', '--soc-version', 'Ascend310P3'])).err).toBe('');
  });

  it('detects --soc_version with npu-smi info when the flag is absent', async () => {
    const r = await gebe(['convert', 'model_repository/mnist_classifier']);
    expect(r.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(record, 'utf8'))).toContain('--soc_version=Ascend310P3');
  });

  it('prints each E-code with a hint and the log path when atc fails, and exits 2', async () => {
    const r = await gebe(['convert', '--soc-version', 'Ascend310P3'], { PATH: `${fakeDir}:${nodeDir}`, FAKE_ATC_MODE: 'fail' });
    expect(r.code).toBe(2);
    expect(r.err).toContain('atc failed for model "mnist_classifier" (exit code 255)');
    expect(r.err).toMatch(/E16005 {2}an ONNX model problem/);
    expect(r.err).toContain('E16005: The model has [2] [--domain_version] fields');
    expect(r.err).toMatch(/E19999 {2}an internal ATC error/);
    expect(r.err).toMatch(/W11001 {2}a warning/);
    expect(r.err).toContain('full log: model_repository/mnist_classifier/1/atc.log');
    expect(fs.existsSync(path.join(versionDir(), 'model.om'))).toBe(false);
  });

  it('fails when atc reports success but the .om has no OM header', async () => {
    const r = await gebe(['convert', '--soc-version', 'Ascend310P3'], { PATH: `${fakeDir}:${nodeDir}`, FAKE_ATC_MODE: 'bad-om' });
    expect(r.code).toBe(2);
    expect(r.err).toContain('model.om is not a valid offline model: the file has 20 bytes, fewer than the 256-byte OM header');
  });

  it('--dry-run prints the exact command and runs nothing, even without CANN', async () => {
    const r = await gebe(['convert', '--dry-run', '--soc-version', 'Ascend310P3', '--log', 'info'], { PATH: nodeDir });
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      `atc --model=${path.join(versionDir(), 'model.onnx')} --framework=5 --output=${path.join(versionDir(), 'model')} ` +
        "--input_shape=image:-1,1,28,28 --input_format=NCHW --dynamic_batch_size=4,8,16 --soc_version=Ascend310P3 --log=info\n",
    );
    expect(fs.existsSync(path.join(versionDir(), 'atc.log'))).toBe(false);
    // How the gears treat a lone request, on stderr so stdout stays the command alone.
    expect(r.err).toContain('note: mnist_classifier: the .om runs batch sizes 4, 8, 16 only: a lone request runs padded to a batch of 4 (3 zeroed rows computed and dropped)');
    expect(r.err).toContain('"graph.ge.dynamicDims" "1;4;8;16"');
  });

  it('tells the user to source set_env.sh, naming the missing variable, when atc is not on PATH', async () => {
    const r = await gebe(['convert', '--soc-version', 'Ascend310P3'], { PATH: nodeDir });
    expect(r.code).toBe(2);
    expect(r.err).toContain('atc was not found on PATH, and ASCEND_HOME_PATH is not set');
    expect(r.err).toContain('set_env.sh');
    const withHome = await gebe(['convert', '--soc-version', 'Ascend310P3'], { PATH: nodeDir, ASCEND_HOME_PATH: '/opt/cann' });
    expect(withHome.err).toContain('PATH lacks /opt/cann/bin');
  });

  it('needs --soc-version when npu-smi is not there; a dry run prints <SOC> and says how to fill it', async () => {
    const r = await gebe(['convert'], { PATH: nodeDir });
    expect(r.code).toBe(2);
    expect(r.err).toContain('--soc-version is needed: npu-smi is not on PATH');
    const dry = await gebe(['convert', '--dry-run'], { PATH: nodeDir });
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/ --soc_version=<SOC>\n$/);
    expect(dry.err).toContain('note: --soc_version=<SOC> is a placeholder (npu-smi is not on PATH (no Ascend driver here)): on the Ascend host, run `npu-smi info`');
  });

  it('converts every ge model of a repository, skipping other backends, or one with -m', async () => {
    expect((await gebe(['init', 'second', '--yes', '--template', 'blank'])).code).toBe(0);
    expect((await gebe(['init', 'other', '--yes', '--backend', 'onnxruntime'])).code).toBe(0);
    const all = await gebe(['convert', '--soc-version', 'Ascend310P3']);
    expect(all.code).toBe(0);
    expect(all.err).toContain('skipping other: backend "onnxruntime" is not "ge"');
    expect(all.out).toContain('converted: 2 of 2 models');
    expect(all.out).toContain('second v1 → model_repository/second/1/model.om');
    const one = await gebe(['convert', '-m', 'second', '--dry-run', '--soc-version', 'Ascend310P3']);
    expect(one.out.trim().split('\n')).toHaveLength(1);
    expect(one.out).toContain('--input_shape=input:-1,4');
    const missing = await gebe(['convert', '-m', 'nope', '--soc-version', 'Ascend310P3']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('model "nope" is not in model_repository');
  });

  it('names the problem in the model directory: two ONNX files, no version, config errors', async () => {
    fs.copyFileSync(path.join(versionDir(), 'model.onnx'), path.join(versionDir(), 'old.onnx'));
    const two = await gebe(['convert', '--soc-version', 'Ascend310P3']);
    expect(two.code).toBe(2);
    expect(two.err).toContain('has 2 .onnx files (model.onnx, old.onnx); the GE backend would load only the first');
    const noVersion = await gebe(['convert', '--soc-version', 'Ascend310P3', '--model-version', '3']);
    expect(noVersion.err).toContain('model "mnist_classifier" has no version 3');
    fs.writeFileSync(path.join(tmp, 'model_repository', 'mnist_classifier', 'config.pbtxt'), 'name: "mnist_classifier"\nmax_batch_size: "sixteen"\n');
    const broken = await gebe(['convert', '--soc-version', 'Ascend310P3']);
    expect(broken.code).toBe(2);
    expect(broken.err).toMatch(/model_repository\/mnist_classifier\/config\.pbtxt:2:\d+: /);
  });
});

/**
 * ONNX backend conformance: every node test of every operator the cpu engine claims must pass
 * within ONNX's own tolerance (rtol 1e-3, atol 1e-7), except the cases listed in an exceptions
 * file: tests that need a data type or attribute the engine rejects with a clear load error. An
 * excepted test must still fail by throwing (never by wrong numbers, unless its reason says ONNX's
 * reference data differs from what the engine computes, and how), and one that starts passing is
 * reported so the list stays true. Two sets of node tests: Debian's libonnx-testdata (ONNX 1.12,
 * conformance-exceptions.json), and fixtures/onnx-node/, ONNX 1.23's tests of the operators opsets
 * 18-25 added that the engine runs (scripts/make-onnx-node-fixtures.py writes them;
 * conformance-exceptions-onnx-node.json).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CpuSession, cpuSupportedOperators, inspectOnnxModel, type CpuTensor } from '../../../helpers/cpu-session.js';
import { readDataSetInputs } from '../../../helpers/onnx-node-tests.js';
import { readTensorProto, type DecodedTensor } from '../../../helpers/onnx-tensor-proto.js';

const debianNodeDir = '/usr/share/libonnx-testdata/data/node';
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const fixtureNodeDir = here('../../../../fixtures/onnx-node');
const RTOL = 1e-3;
// The denominator: node tests that are not training-only, sequence, optional or string
// operators. A test is out of that scope when its operators are (training optimisers, Sequence*,
// Optional*, String*) or when its listed exception says it needs one of those.
const OUT_OF_SCOPE_OPS = /^(Adagrad|Adam|Momentum|Gradient|Sequence.*|Optional.*|String.*|ConcatFromSequence|SplitToSequence)$/;
const OUT_OF_SCOPE_REASON = /^(training mode|needs STRING|optional\/sequence|a control-flow body over sequence)/;
const ATOL = 1e-7;

type Outcome = { kind: 'pass' } | { kind: 'throw'; message: string } | { kind: 'mismatch'; message: string };

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
// FP16 and BF16 travel as bit patterns; compare their values.
function asNumber(datatype: string, v: number | bigint): number {
  if (datatype === 'BF16') {
    u32[0] = Number(v) << 16;
    return f32[0];
  }
  if (datatype !== 'FP16') return Number(v);
  const h = Number(v), sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return exp === 0 ? sign * mant * 2 ** -24 : sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

function compare(name: string, got: CpuTensor, want: DecodedTensor): string | undefined {
  if (got.dims.join(',') !== want.dims.join(',')) return `${name}: dims [${got.dims}] vs expected [${want.dims}]`;
  // ONNX 1.12's data stores BFLOAT16 expectations as UINT16 bit patterns (test_cast_FLOAT_to_BFLOAT16).
  const wantType = want.datatype === 'UINT16' && got.datatype === 'BF16' ? 'BF16' : want.datatype;
  if (got.datatype !== wantType) return `${name}: type ${got.datatype} vs expected ${want.datatype}`;
  const a = got.data, b = want.data!;
  for (let i = 0; i < b.length; i++) {
    const x = asNumber(got.datatype, a[i]), y = asNumber(wantType!, b[i]);
    if (Number.isNaN(y) && Number.isNaN(x)) continue;
    if (x === y) continue;
    if (!(Math.abs(x - y) <= ATOL + RTOL * Math.abs(y))) return `${name}[${i}]: ${x} vs expected ${y}`;
  }
  return undefined;
}

async function runCase(dir: string): Promise<Outcome> {
  let session: CpuSession | undefined;
  try {
    session = CpuSession.load(path.join(dir, 'model.onnx'), { intraOpThreads: 1, parameters: { allow_non_finite_inputs: 'true' } });
    const info = session.info();
    const sets = readdirSync(dir).filter((d) => d.startsWith('test_data_set_')).sort();
    for (const set of sets) {
      const setDir = path.join(dir, set);
      const files = readdirSync(setDir);
      const outputs = await session.run(readDataSetInputs(setDir, info.inputs));
      for (let i = 0; files.includes(`output_${i}.pb`); i++) {
        const want = readTensorProto(path.join(setDir, `output_${i}.pb`));
        if (!want.data) throw new Error(`output_${i}.pb has ONNX type ${want.onnxType}`);
        const problem = compare(`${set}/output_${i}`, outputs[i], want);
        if (problem) return { kind: 'mismatch', message: problem };
      }
    }
    return { kind: 'pass' };
  } catch (err) {
    return { kind: 'throw', message: (err as Error).message };
  } finally {
    session?.close();
  }
}

function conformanceSuite(title: string, nodeDir: string, exceptionsFile: string): void {
  describe.skipIf(!existsSync(nodeDir))(title, () => {
  it('passes every node test of every claimed operator, except the listed ones', async () => {
    const exceptions = JSON.parse(readFileSync(here(exceptionsFile), 'utf8')) as Record<string, string>;
    const claimed = new Set(cpuSupportedOperators());
    const tests = readdirSync(nodeDir).filter((d) => d.startsWith('test_')).sort();
    let ran = 0, passed = 0, excepted = 0, outOfScope = 0, passedInScope = 0;
    const failures: string[] = [];
    const stale: string[] = [];
    const opsOf = (test: string): string[] => {
      try {
        return Object.keys(inspectOnnxModel(path.join(nodeDir, test, 'model.onnx')).operators);
      } catch {
        return [];
      }
    };
    for (const test of tests) {
      const dir = path.join(nodeDir, test);
      // The operator under test is the base test's node: test_softmax_axis_0_expanded tests
      // Softmax (through its function body), not ReduceMax.
      const base = test.replace(/_expanded$/, '');
      const ops = opsOf(base !== test && tests.includes(base) ? base : test);
      const reason = exceptions[test];
      const inScope = !ops.some((op) => OUT_OF_SCOPE_OPS.test(op)) && !(reason !== undefined && OUT_OF_SCOPE_REASON.test(reason));
      if (!inScope) outOfScope++;
      if (!ops.some((op) => claimed.has(op))) continue;
      ran++;
      const outcome = await runCase(dir);
      if (reason !== undefined) {
        excepted++;
        // A random operator's output matches the reference's draws only by chance.
        if (outcome.kind === 'pass' && !reason.startsWith('reference data is random')) stale.push(test);
        // Where ONNX's reference data is computed otherwise (ONNX Runtime's results, which the
        // engine follows, or intermediate values rounded to a narrower type), its reason says so.
        else if (outcome.kind === 'mismatch' && !reason.startsWith('reference data ')) failures.push(`${test} (excepted: ${reason}) gave wrong numbers: ${outcome.message}`);
        continue;
      }
      if (outcome.kind === 'pass') {
        passed++;
        if (inScope) passedInScope++;
      } else failures.push(`${test}: ${outcome.message}`);
    }
    const scopeTotal = tests.length - outOfScope;
    console.log(`${title}: ${ran} node tests ran, ${passed} passed, ${excepted} excepted, ${failures.length} failed; ` +
      `${passedInScope} of the ${scopeTotal} tests that are not training-only, sequence, optional or string ops pass (${((100 * passedInScope) / scopeTotal).toFixed(1)}%)`);
    // GEBE_CONFORMANCE_REPORT=<file> writes the failures, one per line, for triage.
    if (process.env.GEBE_CONFORMANCE_REPORT) writeFileSync(process.env.GEBE_CONFORMANCE_REPORT, failures.join('\n') + '\n');
    if (stale.length) console.log(`excepted but now passing (remove from the exceptions file): ${stale.join(', ')}`);
    expect(failures).toEqual([]);
    expect(stale).toEqual([]);
    expect(ran).toBeGreaterThan(0);
  });
  });
}

conformanceSuite('ONNX node conformance (libonnx-testdata, ONNX 1.12)', debianNodeDir, './conformance-exceptions.json');
conformanceSuite('ONNX node conformance (fixtures/onnx-node, ONNX 1.23: operators of opsets 18-25)', fixtureNodeDir, './conformance-exceptions-onnx-node.json');

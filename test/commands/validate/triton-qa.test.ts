/**
 * Triton's own QA cases, both directions:
 * - every noautofill_platform case, prepared as test.sh does (platform lines dropped,
 *   platform "onnxruntime_onnx" appended; also "tensorrt_plan" and "pytorch_libtorch"), makes `gebe validate <config>` report an error that says
 *   what Triton's expected fragment says;
 * - every expected* file of the autofill_noplatform_success cases (complete configs Triton loads)
 *   makes `gebe validate <file>` report no error;
 * - every model_metrics case, its partial config appended to a decoupled Python model's config as
 *   test.sh does (Triton's base config is not in the corpus: an equivalent one is written here),
 *   fails with Triton's message, loads, or loads with Triton's warning, as Triton's expects.
 * Cases gebe treats differently on purpose are listed, with reasons, in triton-qa-exceptions.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../../../src/io.js';
import { runValidate } from '../../../src/commands/validate/run.js';
import { toValidateOptions } from '../../../src/commands/validate/options.js';
import { QA_EXCEPTIONS } from './triton-qa-exceptions.js';
import { expectedFiles, expectedMessage, qaCases, withPlatform } from './triton-qa.js';

interface JsonOutput {
  diagnostics: Array<{ ruleId: string; severity: string; message: string; line: number }>;
  summary: { errors: number };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-triton-qa-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function validateFile(file: string): Promise<{ code: number; out: JsonOutput }> {
  const io = memoryIO({ cwd: tmp });
  const code = await runValidate(toValidateOptions([file], { format: 'json' }), io);
  return { code, out: JSON.parse(io.out()) as JsonOutput };
}

const failing = qaCases('noautofill_platform');
const succeeding = qaCases('autofill_noplatform_success');
const modelMetrics = qaCases('model_metrics');

// test.sh runs each case once per platform; onnxruntime_onnx is the one the issue names.
for (const platform of ['onnxruntime_onnx', 'tensorrt_plan', 'pytorch_libtorch']) {
  describe(`Triton QA: noautofill_platform cases with platform "${platform}" fail validation with Triton's message`, () => {
    it('finds all 58 cases', () => expect(failing).toHaveLength(58));

    for (const c of failing) {
      const exception = QA_EXCEPTIONS[c.id];
      it(`${c.id} ${c.model}${exception ? ` (exception: ${exception.treatment})` : ''}`, async () => {
        const file = path.join(tmp, `${c.id}-${platform}-config.pbtxt`);
        fs.writeFileSync(file, withPlatform(fs.readFileSync(path.join(c.dir, 'config.pbtxt'), 'utf8'), platform));
        const { code, out } = await validateFile(file);
        const errors = out.diagnostics.filter((d) => d.severity === 'error');
        const patterns = expectedFiles(c.dir).map((f) => expectedMessage(fs.readFileSync(f, 'utf8'), c.model));
        const matched = errors.some((d) => patterns.some((p) => p.test(d.message)));
        if (exception?.treatment === 'no-error') {
          expect(errors).toEqual([]);
          expect(code).toBe(0);
          return;
        }
        expect(errors.length, 'at least one error').toBeGreaterThan(0);
        expect(code).toBe(1);
        expect(out.diagnostics.every((d) => d.line >= 1)).toBe(true);
        if (exception?.treatment === 'other-message') expect(matched, 'the exception is stale: the message now matches').toBe(false);
        else expect(matched, `no error says ${patterns.map(String).join(' or ')}; got ${errors.map((d) => d.message).join(' | ')}`).toBe(true);
      });
    }
  });
}

describe('Triton QA: autofill_noplatform_success expected configs pass validation', () => {
  it('finds all 41 cases', () => expect(succeeding).toHaveLength(41));

  for (const c of succeeding) {
    it(`${c.id} ${c.model}`, async () => {
      const files = expectedFiles(c.dir);
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const { code, out } = await validateFile(file);
        expect(out.diagnostics.filter((d) => d.severity === 'error'), path.relative(c.dir, file)).toEqual([]);
        expect(code).toBe(0);
      }
    });
  }
});

/** A decoupled Python model's config, as Triton's async_execute_decouple QA model has. */
const DECOUPLED_PYTHON = `backend: "python"
max_batch_size: 8
input [ { name: "WAIT_SECONDS" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "DUMMY_OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
model_transaction_policy { decoupled: True }
`;

describe('Triton QA: model_metrics cases', () => {
  it('finds all 8 cases', () => expect(modelMetrics).toHaveLength(8));

  for (const c of modelMetrics) {
    it(`${c.id} ${c.source.split('/model_metrics/')[1]}`, async () => {
      const file = path.join(tmp, `${c.id}-config.pbtxt`);
      fs.writeFileSync(file, `name: "${c.model}"\n${DECOUPLED_PYTHON}${fs.readFileSync(path.join(c.dir, 'partial.pbtxt'), 'utf8')}`);
      const { code, out } = await validateFile(file);
      const errors = out.diagnostics.filter((d) => d.severity === 'error');
      const warnings = out.diagnostics.filter((d) => d.severity === 'warning').map((d) => d.message);
      const patterns = expectedFiles(c.dir).map((f) => expectedMessage(fs.readFileSync(f, 'utf8'), c.model));
      if (patterns.length === 0) {
        expect(errors).toEqual([]);
        expect(warnings).toEqual([]);
        expect(code).toBe(0);
      } else if (c.source.includes('/valid_config_with_warn/')) {
        expect(errors).toEqual([]);
        expect(warnings.some((w) => patterns.some((p) => p.test(w))), `no warning says ${patterns.map(String).join(' or ')}; got ${warnings.join(' | ')}`).toBe(true);
      } else {
        expect(code).toBe(1);
        expect(errors.some((d) => patterns.some((p) => p.test(d.message))), `no error says ${patterns.map(String).join(' or ')}; got ${errors.map((d) => d.message).join(' | ')}`).toBe(true);
      }
    });
  }
});

/**
 * validate's ENGINE_UNSUPPORTED and serve's refusal at load come from one native check
 * (CheckModel, native/src/cpu/program.h). Every invalid case of the rule (an operator the engine
 * lacks, an element type a kernel refuses mid-graph, the same on constants) is linted as validate
 * lints it and loaded as serve loads it (the executor facade, real engine): the load error lists
 * exactly the findings validate reported, in the same order and the same words.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/core/config/parse.js';
import { loadModel } from '../../../src/core/executor/index.js';
import { lintTargets } from '../../../src/core/lint/runner.js';
import { scanTarget } from '../../../src/core/repository/scan.js';
import { materialize } from './rule-tester.js';
import cases from './rules/ENGINE_UNSUPPORTED.cases.js';

const FINDING = /^the cpu engine cannot run (.*) in model\.onnx; gebe serve refuses the model at load/;

describe("ENGINE_UNSUPPORTED and the cpu engine's refusal at load", () => {
  it.each(cases.invalid.map((c) => [c.name!, c] as const))('list the same findings in the same words: %s', async (_name, c) => {
    const { cwd, given } = materialize(c);
    try {
      const findings = lintTargets([scanTarget(given, cwd)]).diagnostics
        .filter((d) => d.ruleId === 'ENGINE_UNSUPPORTED')
        .map((d) => FINDING.exec(d.message)?.[1]);
      expect(findings.length).toBeGreaterThan(0);
      expect(findings).not.toContain(undefined);
      const dir = path.join(cwd, given);
      const { config } = parseModelConfig(fs.readFileSync(path.join(dir, 'config.pbtxt'), 'utf8'), 'config.pbtxt');
      const refusal = await loadModel(dir, '1', config!).then(
        async (model) => {
          await model.unload();
          return 'the model loaded';
        },
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      );
      const things = findings.length === 1 ? '1 thing' : `${findings.length} things`;
      expect(refusal).toContain(`the cpu engine cannot run ${things} this model uses: ${findings.join('; ')}. `);
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });
});

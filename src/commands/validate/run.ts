/**
 * `gebe validate`: scan → lint → (--fix: apply safe fixes and write; --fix-dry-run: print them
 * as a diff) → gate (config file, --against, unused suppressions) → format. Returns the exit code:
 * 0 without error-level findings, 1 with them (or with warnings under --strict, or more than
 * --max-warnings).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { EXIT_FINDINGS, EXIT_OK } from '../../errors.js';
import { colorEnabled, type IO } from '../../io.js';
import { unifiedDiff } from '../../core/lint/fix-diff.js';
import { applySafeFixesInMemory } from '../../core/lint/fixes.js';
import { FORMATTERS, summarize, type LintReport } from '../../core/lint/formatters/index.js';
import { lintTargets, type LintResult } from '../../core/lint/runner.js';
import { writeFixedConfig } from '../../core/lint/write-fixed.js';
import { customConfigTargets, scanTarget } from '../../core/repository/scan.js';
import type { ScanTarget } from '../../core/repository/types.js';
import { explainRule, gate, loadRunSettings, printConfig, type RunSettings } from './gating.js';
import type { ValidateOptions } from './options.js';

const require = createRequire(import.meta.url);

function gebeVersion(): string {
  for (const rel of ['../../../package.json', '../../../../package.json']) {
    try {
      return (require(rel) as { version: string }).version;
    } catch {
      // dist/ and src/ sit at different depths below package.json
    }
  }
  return '0.0.0';
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The validated path (repository, model or config's folder) a fixed file must stay inside. */
function fixRoot(opts: ValidateOptions, io: IO, file: string): string {
  for (const given of opts.paths) {
    const abs = path.resolve(io.cwd, given);
    const dir = fs.statSync(abs).isDirectory() ? abs : path.dirname(abs);
    if (!path.relative(dir, file).startsWith('..')) return dir;
  }
  return path.dirname(file);
}

export async function runValidate(opts: ValidateOptions, io: IO): Promise<number> {
  if (opts.explain) {
    io.stdout.write(explainRule(opts.explain));
    return EXIT_OK;
  }
  const run: RunSettings = loadRunSettings(opts, io);
  if (opts.printConfig) {
    io.stdout.write(printConfig(opts.printConfig, run));
    return EXIT_OK;
  }
  // Without --model-config-name, every custom config a server could be told to load is checked too.
  const scan = (): ScanTarget[] => opts.paths.flatMap((p) => {
    const target = scanTarget(p, io.cwd, { configName: opts.modelConfigName });
    return opts.modelConfigName === undefined ? [target, ...customConfigTargets(target)] : [target];
  });
  const lint = (targets: ScanTarget[]) => lintTargets(targets, { overrides: run.settings.global('rules') });
  /** Findings after the gate, and whether they fail the run. */
  const judge = (result: LintResult, targets: ScanTarget[]) => {
    const diagnostics = gate(result, targets, run, opts, io);
    const summary = summarize(diagnostics, result.models, result.files);
    const tooManyWarnings = run.maxWarnings !== undefined && summary.warnings > run.maxWarnings;
    const failing = summary.errors > 0 || (run.strict && summary.warnings > 0) || tooManyWarnings;
    return { diagnostics, summary, tooManyWarnings, failing };
  };

  if (opts.fixDryRun) {
    // The files stay as they are, so the exit code is that of the files as they are.
    const targets = scan();
    const before = judge(lint(targets), targets);
    const { result, files } = applySafeFixesInMemory(scan(), lint);
    io.stdout.write(unifiedDiff(files));
    const applied = files.reduce((n, f) => n + f.applied, 0);
    const remaining = result.diagnostics.length;
    io.stderr.write(files.length === 0
      ? `no safe fixes to apply; ${plural(remaining, 'problem')} need a decision (run without --fix-dry-run to see them)\n`
      : `--fix would fix ${plural(applied, 'problem')} in ${plural(files.length, 'file')}; ${plural(remaining, 'problem')} would remain\n`);
    return before.failing ? EXIT_FINDINGS : EXIT_OK;
  }
  let result: LintResult;
  let targets = scan();
  if (opts.fix) {
    const outcome = applySafeFixesInMemory(targets, lint);
    for (const file of outcome.files) {
      const written = writeFixedConfig(file.path, file.after, fixRoot(opts, io, file.path));
      io.stderr.write(written.ok ? `fixed ${plural(file.applied, 'problem')} in ${file.display}\n` : `not fixed: ${file.display}: ${written.reason}\n`);
    }
    result = outcome.result;
    // The gate compares the files as written (--against reads the working tree).
    if (outcome.files.length > 0) {
      targets = scan();
      result = lint(targets);
    }
  } else {
    result = lint(targets);
  }
  const judged = judge(result, targets);
  const sources = new Map<string, string>();
  for (const { source } of result.configs) if (source.text !== undefined) sources.set(source.display, source.text);
  const report: LintReport = { diagnostics: judged.diagnostics, summary: judged.summary, sources };
  const color = opts.format === 'text' && colorEnabled(io, 'stdout');
  io.stdout.write(FORMATTERS[opts.format](report, { color, strict: run.strict, version: gebeVersion() }));
  if (judged.tooManyWarnings) io.stderr.write(`gebe found too many warnings: ${report.summary.warnings} (--max-warnings ${run.maxWarnings})\n`);
  return judged.failing ? EXIT_FINDINGS : EXIT_OK;
}

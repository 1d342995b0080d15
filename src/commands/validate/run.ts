/**
 * `gebe validate`: scan → lint → (--fix: apply safe fixes and write; --fix-dry-run: print them
 * as a diff) → format. Returns the exit code: 0 without error-level findings, 1 with them (or
 * with warnings under --strict).
 */
import { createRequire } from 'node:module';
import { EXIT_FINDINGS, EXIT_OK } from '../../errors.js';
import { colorEnabled, type IO } from '../../io.js';
import { unifiedDiff } from '../../core/lint/fix-diff.js';
import { writeFileAtomic } from '../../core/lint/fix-writer.js';
import { applySafeFixesInMemory } from '../../core/lint/fixes.js';
import { FORMATTERS, summarize, type LintReport } from '../../core/lint/formatters/index.js';
import { lintTargets, type LintResult } from '../../core/lint/runner.js';
import { scanTarget } from '../../core/repository/scan.js';
import type { ScanTarget } from '../../core/repository/types.js';
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

function failing(result: LintResult, opts: ValidateOptions): boolean {
  const s = summarize(result.diagnostics, result.models, result.files);
  return s.errors > 0 || (opts.strict && s.warnings > 0);
}

export async function runValidate(opts: ValidateOptions, io: IO): Promise<number> {
  const scan = (): ScanTarget[] => opts.paths.map((p) => scanTarget(p, io.cwd));
  const lint = (targets: ScanTarget[]) => lintTargets(targets, { overrides: opts.rules });
  if (opts.fixDryRun) {
    // The files stay as they are, so the exit code is that of the files as they are.
    const before = lint(scan());
    const { result, files } = applySafeFixesInMemory(scan(), lint);
    io.stdout.write(unifiedDiff(files));
    const applied = files.reduce((n, f) => n + f.applied, 0);
    const remaining = result.diagnostics.length;
    io.stderr.write(files.length === 0
      ? `no safe fixes to apply; ${plural(remaining, 'problem')} need a decision (run without --fix-dry-run to see them)\n`
      : `--fix would fix ${plural(applied, 'problem')} in ${plural(files.length, 'file')}; ${plural(remaining, 'problem')} would remain\n`);
    return failing(before, opts) ? EXIT_FINDINGS : EXIT_OK;
  }
  let result: LintResult;
  if (opts.fix) {
    const outcome = applySafeFixesInMemory(scan(), lint);
    for (const file of outcome.files) {
      writeFileAtomic(file.path, file.after);
      io.stderr.write(`fixed ${plural(file.applied, 'problem')} in ${file.display}\n`);
    }
    result = outcome.result;
  } else {
    result = lint(scan());
  }
  const sources = new Map<string, string>();
  for (const { source } of result.configs) if (source.text !== undefined) sources.set(source.display, source.text);
  const report: LintReport = {
    diagnostics: result.diagnostics,
    summary: summarize(result.diagnostics, result.models, result.files),
    sources,
  };
  const color = opts.format === 'text' && colorEnabled(io, 'stdout');
  io.stdout.write(FORMATTERS[opts.format](report, { color, strict: opts.strict, version: gebeVersion() }));
  return failing(result, opts) ? EXIT_FINDINGS : EXIT_OK;
}

/**
 * `gebe explain <log>`: reads a tritonserver log (streamed, a file or stdin), finds the model-load
 * failures, and for each names the gebe rule that catches it before deploy, the file and line in
 * the repository (with --model-repository, by running the same lint as `gebe validate`), and the
 * fix. Exit 1 when the log has load failures, 0 when it has none.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import { EXIT_FINDINGS, EXIT_OK, UsageError } from '../../errors.js';
import type { IO } from '../../io.js';
import type { Diagnostic } from '../../core/diagnostic.js';
import { LoadFailureScanner, type LoadFailure } from '../../core/explain/log.js';
import { templateRegExp } from '../../core/explain/patterns.js';
import { lintTargets } from '../../core/lint/runner.js';
import { scanTarget } from '../../core/repository/scan.js';

export interface ExplainOptions {
  /** A log file, or '-' for stdin. */
  log: string;
  modelRepository?: string;
  format: 'text' | 'json';
}

export interface Explained {
  failure: LoadFailure;
  rule?: string;
  location?: { file: string; line: number; column: number; message: string };
}

async function scan(stream: Readable): Promise<LoadFailure[]> {
  const scanner = new LoadFailureScanner();
  for await (const line of readline.createInterface({ input: stream, crlfDelay: Infinity })) scanner.push(line);
  return scanner.failures;
}

/** The repository's finding for a failure: one of the pattern's rules, in that model, preferably with Triton's wording. */
function locate(failure: LoadFailure, diagnostics: Diagnostic[], repoDisplay: string): Diagnostic | undefined {
  const rules = failure.pattern?.rules ?? [];
  if (!failure.model || rules.length === 0) return undefined;
  const dir = path.join(repoDisplay, failure.model);
  const inModel = diagnostics.filter((d) => rules.includes(d.ruleId) && (d.file === dir || d.file.startsWith(`${dir}${path.sep}`)));
  const wording = templateRegExp(failure.pattern!.template);
  return inModel.find((d) => wording.test(d.message)) ?? inModel[0];
}

export function explainFailures(failures: LoadFailure[], repository: string | undefined, cwd: string): Explained[] {
  let diagnostics: Diagnostic[] = [];
  if (repository) {
    const target = scanTarget(repository, cwd);
    diagnostics = lintTargets([target]).diagnostics;
  }
  return failures.map((failure) => {
    const found = repository ? locate(failure, diagnostics, repository) : undefined;
    const rules = failure.pattern?.rules ?? [];
    const rule = found?.ruleId ?? (rules.length === 1 ? rules[0] : undefined);
    return { failure, rule, location: found && { file: found.file, line: found.line, column: found.column, message: found.message } };
  });
}

function formatText(explained: Explained[], logName: string): string {
  const out: string[] = [];
  for (const { failure, rule, location } of explained) {
    const who = failure.model !== undefined ? `model '${failure.model}'${failure.version !== undefined ? ` version ${failure.version}` : ''}` : 'a model';
    out.push(`${logName}:${failure.line} ${who} failed to load: ${failure.code ? `${failure.code}: ` : ''}${failure.message}`);
    const p = failure.pattern;
    if (!p) out.push('  rule: none known (no gebe rule maps this message yet)');
    else if (p.rules.length === 0) out.push(`  rule: none: ${p.noRule}`);
    else if (rule) out.push(`  rule: ${rule}, caught before deploy by gebe validate (gebe validate --explain ${rule})`);
    else out.push(`  rule: one of ${p.rules.join(', ')}, caught before deploy by gebe validate`);
    if (location) out.push(`  at:   ${location.file}:${location.line}:${location.column} ${location.message}`);
    if (p) out.push(`  fix:  ${p.fix}`);
    out.push('');
  }
  const mapped = explained.filter((e) => e.failure.pattern).length;
  out.push(explained.length === 0 ? 'no model-load failures in the log' : `${explained.length} model-load failure${explained.length === 1 ? '' : 's'}, ${mapped} recognised`);
  return `${out.join('\n')}\n`;
}

function formatJson(explained: Explained[]): string {
  return `${JSON.stringify({
    failures: explained.map(({ failure, rule, location }) => ({
      line: failure.line,
      model: failure.model ?? null,
      version: failure.version ?? null,
      code: failure.code ?? null,
      message: failure.message,
      recognised: failure.pattern !== undefined,
      rules: failure.pattern?.rules ?? [],
      rule: rule ?? null,
      location: location ?? null,
      fix: failure.pattern?.fix ?? null,
      source: failure.pattern?.source ?? null,
    })),
  }, null, 2)}\n`;
}

export async function runExplain(opts: ExplainOptions, io: IO, stdin: Readable = process.stdin): Promise<number> {
  let stream: Readable;
  if (opts.log === '-') stream = stdin;
  else {
    const file = path.resolve(io.cwd, opts.log);
    if (!fs.existsSync(file)) throw new UsageError(`${opts.log} does not exist`, 'pass a tritonserver log file, or - to read stdin');
    stream = fs.createReadStream(file);
  }
  if (opts.modelRepository && !fs.existsSync(path.resolve(io.cwd, opts.modelRepository))) {
    throw new UsageError(`--model-repository ${opts.modelRepository} does not exist`);
  }
  const failures = await scan(stream);
  const explained = explainFailures(failures, opts.modelRepository, io.cwd);
  io.stdout.write(opts.format === 'json' ? formatJson(explained) : formatText(explained, opts.log === '-' ? '<stdin>' : opts.log));
  return failures.length > 0 ? EXIT_FINDINGS : EXIT_OK;
}

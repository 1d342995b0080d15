/**
 * What every formatter receives. Formatters are pure functions from this to a string.
 */
import type { Diagnostic } from '../../diagnostic.js';

export interface Summary {
  errors: number;
  warnings: number;
  infos: number;
  models: number;
  files: number;
}

export interface LintReport {
  diagnostics: Diagnostic[];
  summary: Summary;
  /** The text of each config file, by the path diagnostics use, for code frames. */
  sources: ReadonlyMap<string, string>;
}

export interface FormatOptions {
  color: boolean;
  /** --strict: warnings fail too (the junit formatter marks them as failures). */
  strict: boolean;
  /** gebe's version, for SARIF's tool.driver. */
  version: string;
}

export type Formatter = (report: LintReport, options: FormatOptions) => string;

export function summarize(diagnostics: Diagnostic[], models: number, files: number): Summary {
  const count = (s: Diagnostic['severity']) => diagnostics.filter((d) => d.severity === s).length;
  return { errors: count('error'), warnings: count('warning'), infos: count('info'), models, files };
}

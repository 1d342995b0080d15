/**
 * Diagnostics are plain data shared by the config parser, the repository scanner and the lint
 * rules; formatters (text, json, sarif, github, junit) turn them into output.
 */
export type Severity = 'error' | 'warning' | 'info';

/** A replacement of the source text between two 0-based offsets. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** A safe automatic fix (applied by --fix), or a suggestion when `safe` is false. */
export interface Fix {
  description: string;
  edits: TextEdit[];
  safe: boolean;
}

/** 1-based line and column, like every editor and SARIF. */
export interface Diagnostic {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  ruleId: string;
  severity: Severity;
  message: string;
  fix?: Fix;
}

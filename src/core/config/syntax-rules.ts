/**
 * The catalogue of diagnostics the config parser reports, like a lint rule registry: a stable id,
 * what it checks, its default severity and whether it comes with a safe fix, a suggestion, or
 * neither. Formatters (SARIF rule metadata, --rule validation) and docs read it; a test keeps it
 * in step with the ids the parser can emit.
 */
import type { Severity } from '../diagnostic.js';

export interface SyntaxRule {
  id: string;
  /** One sentence: "Checks that ...". */
  summary: string;
  severity: Severity;
  /** `safe`: `--fix` applies it; `suggestion`: offered, never applied automatically. */
  fix: 'safe' | 'suggestion' | 'some' | 'none';
}

export const SYNTAX_RULES: readonly SyntaxRule[] = [
  { id: 'SYNTAX_SLASH_COMMENT', summary: 'Checks that comments start with "#": protobuf text format has no "//" or "/* */" comments.', severity: 'error', fix: 'safe' },
  { id: 'SYNTAX_TYPOGRAPHIC_QUOTE', summary: 'Checks that strings are delimited by ASCII quotes, not typographic quotes such as “ ” ‘ ’.', severity: 'error', fix: 'safe' },
  { id: 'SYNTAX_UNQUOTED_STRING', summary: 'Checks that values of string fields are quoted.', severity: 'error', fix: 'safe' },
  { id: 'SYNTAX_INVALID_CHARACTER', summary: 'Checks that the file has no byte-order mark or non-ASCII spaces outside strings.', severity: 'error', fix: 'safe' },
  { id: 'SYNTAX_QUOTED_FIELD_NAME', summary: 'Checks that field names are written without quotes (not JSON style).', severity: 'error', fix: 'safe' },
  { id: 'SYNTAX_MISSING_COLON', summary: 'Checks that a ":" separates a scalar field (or a list of scalars) from its value.', severity: 'error', fix: 'safe' },
  { id: 'SYNTAX_TRAILING_COMMA', summary: 'Checks that a list has no "," after its last element.', severity: 'error', fix: 'safe' },
  { id: 'SYNTAX_MISSING_COMMA', summary: 'Checks that list elements are separated by ",".', severity: 'error', fix: 'safe' },
  { id: 'SYNTAX_INVALID_ESCAPE', summary: 'Checks that backslash escapes in strings are valid (a literal backslash is written "\\\\").', severity: 'error', fix: 'some' },
  { id: 'SYNTAX_INVALID_UTF8', summary: 'Checks that escaped bytes in a string form valid UTF-8.', severity: 'error', fix: 'none' },
  { id: 'SYNTAX_UNTERMINATED_STRING', summary: 'Checks that every string is closed on the line where it starts.', severity: 'error', fix: 'none' },
  { id: 'SYNTAX_UNEXPECTED_TOKEN', summary: 'Checks that punctuation appears only where the text format allows it (":" not "=", balanced closers, single separators).', severity: 'error', fix: 'some' },
  { id: 'SYNTAX_UNCLOSED_BLOCK', summary: 'Checks that every "{", "<" and "[" is closed, reporting where the block opened.', severity: 'error', fix: 'suggestion' },
  { id: 'SYNTAX_INVALID_FIELD_NAME', summary: 'Checks that field names contain only letters, digits and "_".', severity: 'error', fix: 'none' },
  { id: 'SYNTAX_MISSING_VALUE', summary: 'Checks that every field name is followed by a value, a block or a list.', severity: 'error', fix: 'none' },
  { id: 'SYNTAX_JSON_CONFIG', summary: 'Checks that the file is protobuf text format rather than a JSON document.', severity: 'error', fix: 'none' },
  { id: 'SYNTAX_UNKNOWN_FIELD', summary: 'Checks that every field exists in Triton\'s ModelConfig schema at that place, suggesting the closest name.', severity: 'error', fix: 'suggestion' },
  { id: 'SYNTAX_WRONG_VALUE_TYPE', summary: 'Checks that each value has its field\'s type: numbers for numeric fields, blocks for messages, one value for non-repeated fields.', severity: 'error', fix: 'some' },
  { id: 'SYNTAX_UNKNOWN_ENUM_VALUE', summary: 'Checks that enum fields name a value of their enum, suggesting the closest one.', severity: 'error', fix: 'suggestion' },
  { id: 'SYNTAX_INTEGER_RANGE', summary: 'Checks that integers fit their field\'s type (int32, uint32, int64, uint64).', severity: 'error', fix: 'none' },
  { id: 'SYNTAX_DUPLICATE_FIELD', summary: 'Checks that a non-repeated field is given once (a warning when the official parser silently keeps the last).', severity: 'error', fix: 'none' },
  { id: 'SYNTAX_ONEOF_CONFLICT', summary: 'Checks that at most one member of a oneof is set (e.g. one of dynamic_batching, sequence_batching, ensemble_scheduling).', severity: 'error', fix: 'none' },
  { id: 'SYNTAX_DUPLICATE_MAP_KEY', summary: 'Checks that a map key (such as a parameters key) appears once; only the last entry counts.', severity: 'warning', fix: 'none' },
  { id: 'SYNTAX_NESTING_TOO_DEEP', summary: 'Checks that blocks nest at most 200 levels deep.', severity: 'error', fix: 'none' },
  { id: 'SYNTAX_TOO_MANY_ERRORS', summary: 'Reports that more problems were found than are listed.', severity: 'error', fix: 'none' },
  { id: 'SYNTAX_FILE_TOO_LARGE', summary: 'Checks that the config is at most 4 MB, far above any real Triton config.', severity: 'error', fix: 'none' },
];

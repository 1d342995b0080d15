/**
 * The text-format syntax tree with source spans, and the parser's result. This is the contract
 * between the config core (which produces it) and the lint rules and edits (which read it).
 */
import type { Diagnostic } from '../diagnostic.js';
import type { ModelConfig } from './model-config.js';

/** line and column are 1-based; offset is the 0-based index into the source string. */
export interface Position {
  line: number;
  column: number;
  offset: number;
}

export interface Span {
  start: Position;
  end: Position;
}

export interface ScalarNode {
  kind: 'scalar';
  /** How the value was written: an identifier (enum name, true), a quoted string, or a number. */
  token: 'identifier' | 'string' | 'number';
  /** The exact source text of the value (all adjacent string pieces for concatenated strings). */
  text: string;
  /** The decoded value: unescaped string, number, bigint (64-bit beyond 2^53), boolean, or enum name. */
  value: string | number | bigint | boolean;
  span: Span;
}

export interface ListNode {
  kind: 'list';
  items: Array<ScalarNode | MessageNode>;
  span: Span;
}

export interface MessageNode {
  kind: 'message';
  fields: FieldNode[];
  /** The whole block, braces included (the whole file for the root). */
  span: Span;
}

export interface FieldNode {
  name: string;
  nameSpan: Span;
  value: ScalarNode | MessageNode | ListNode;
  /** From the field name to the end of its value. */
  span: Span;
  /** The `:` after the name, when one is written (scalar fields require it, messages do not). */
  colonSpan?: Span;
}

/**
 * A path into the config as the plain object shows it: ['input', 2, 'dims', 0],
 * ['parameters', 'device_ids'] for a map key, ['dynamic_batching', 'preferred_batch_size'].
 */
export type ConfigPath = Array<string | number>;

export interface ParseResult {
  root: MessageNode;
  /** The plain config (proto field names, 64-bit integers as numbers); best effort after errors. */
  config: ModelConfig;
  /** Syntax and schema diagnostics (rule ids start with SYNTAX_), in source order. */
  diagnostics: Diagnostic[];
  /**
   * The span of the value at `path` (or of the field name with `{ name: true }`); undefined if
   * absent. Indexes count elements across lists and repeated keys in source order; a path that
   * stops at a repeated field gives its first occurrence (the whole list when written as one); a
   * non-repeated field written twice gives the last; a map key gives the last entry with that key
   * (its `value`, or its `key` with `{ name: true }`).
   */
  locate(path: ConfigPath, options?: { name?: boolean }): Span | undefined;
}

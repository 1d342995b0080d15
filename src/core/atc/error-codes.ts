/**
 * ATC's error-manager codes (E10001, W11001, ...) found in its output, each with a one-line hint.
 * Specific codes get specific hints; the rest get the hint of their family (the first three
 * characters), which CANN's error-code tables group by component.
 */
export interface FoundCode {
  code: string;
  /** The first output line that mentions it, trimmed. */
  line: string;
  hint: string;
}

const SPECIFIC: Record<string, string> = {
  E10001: 'an argument value is invalid: the message names the parameter; gebe derives --input_shape and the gears from config.pbtxt',
  E19999: 'an internal ATC error: rerun with --log debug and read the full log; check that CANN matches the --soc-version',
};

const FAMILIES: Record<string, string> = {
  E10: 'a command-line argument problem: check the parameter named in the message against config.pbtxt and `atc --help`',
  E11: 'a Caffe model problem (unexpected for ONNX input): check --framework',
  E12: 'a TensorFlow model problem (unexpected for ONNX input): check --framework',
  E13: 'a file or environment problem: check the paths, permissions and that CANN\'s set_env.sh was sourced',
  E16: 'an ONNX model problem: check that the opset and operators are supported by this CANN version and that input names match config.pbtxt',
  W11: 'a warning: often harmless (e.g. an operator runs on a slower path); read it if the model misbehaves',
};

const CODE = /\b([EW]\d{5})\b/g;

export function findErrorCodes(output: string): FoundCode[] {
  const found = new Map<string, FoundCode>();
  for (const rawLine of output.split(/\r?\n/)) {
    for (const match of rawLine.matchAll(CODE)) {
      const code = match[1]!;
      if (!found.has(code)) found.set(code, { code, line: rawLine.trim(), hint: hintFor(code) });
    }
  }
  // Errors first, then warnings, each in the order ATC printed them.
  return [...found.values()].sort((a, b) => Number(a.code[0] === 'W') - Number(b.code[0] === 'W'));
}

export function hintFor(code: string): string {
  return SPECIFIC[code] ?? FAMILIES[code.slice(0, 3)] ?? (code.startsWith('W') ? FAMILIES.W11! : 'see the full log and the CANN error-code reference for this code');
}

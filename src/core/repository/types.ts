/**
 * What a repository scan finds: models, their config source, version directories and files, plus
 * the file-system problems met on the way (each becomes a diagnostic through a lint rule).
 */

/** A file-system problem found while scanning; `display` is the path as the user will see it. */
export interface ScanProblem {
  kind: 'unreadable' | 'binary' | 'too-large' | 'symlink-loop' | 'symlink-outside' | 'walk-limit';
  path: string;
  display: string;
  message: string;
}

/** A config file's text, or why there is none. */
export interface ConfigSource {
  path: string;
  display: string;
  /** The decoded text (invalid UTF-8 sequences become U+FFFD); undefined when unreadable. */
  text?: string;
  /** The first invalid UTF-8 byte, when the file is not valid UTF-8. */
  invalidUtf8?: { line: number; column: number; offset: number };
}

export interface VersionDir {
  /** The directory name, e.g. "1". */
  name: string;
  version: number;
  path: string;
  display: string;
  /** Files inside the version directory, relative to it, sorted, recursive (symlinks followed once). */
  files: string[];
}

/** A directory entry of a model directory that is neither a version nor a known non-version folder. */
export interface SkippedEntry {
  name: string;
  path: string;
  display: string;
  reason: string;
}

export interface ModelEntry {
  /** The model directory's name: the name Triton gives the model. */
  name: string;
  dir: string;
  display: string;
  /** undefined when the model directory has no config.pbtxt. */
  config?: ConfigSource;
  /** Valid version directories, in ascending version order. */
  versions: VersionDir[];
  skipped: SkippedEntry[];
  /** Every file under the model directory, relative to it, in the order a recursive search meets them. */
  files: string[];
  /** Files in `<model>/warmup/`, relative to that folder. */
  warmupFiles: string[];
}

export interface ScanTarget {
  kind: 'repository' | 'model' | 'config';
  /** The path as given on the command line. */
  given: string;
  path: string;
  models: ModelEntry[];
  /** A config file given alone (kind 'config'). */
  config?: ConfigSource;
  problems: ScanProblem[];
  /**
   * A model's other config (`configs/<name>.pbtxt`, which tritonserver --model-config-name loads),
   * linted in its model directory beside the model's own: not another model.
   */
  alternate?: boolean;
}

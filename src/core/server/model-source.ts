/**
 * What the model manager needs from a model repository: the model names, and per model its
 * directory, parsed config, versions to serve, validation errors and a fingerprint of its files
 * (poll mode reloads a model whose fingerprint changed).
 */
import type { ModelConfig } from '../config/model-config.js';
import type { ConfigOrigin } from './config-json.js';

export interface RepositoryModel {
  name: string;
  /** The model directory (holds config.pbtxt and the version directories). */
  dir: string;
  /** The parsed config; undefined when it could not be read or parsed. */
  config?: ModelConfig;
  /** Versions to serve under the version policy, as decimal strings, ascending. */
  versions: string[];
  /** Validation errors (validate rules, severity error), each naming its file and line. */
  errors: string[];
  /** Changes whenever config.pbtxt or a file of a served version changes. */
  fingerprint: string;
}

export interface ModelSource {
  /** Model names in the repository, sorted. */
  list(): Promise<string[]>;
  /**
   * Reads one model; `configOverride` replaces config.pbtxt (a load with a `config` parameter, or
   * the config a Python model's auto_complete_config() completed: `origin`), checked as it is.
   */
  read(name: string, configOverride?: ModelConfig, origin?: ConfigOrigin): Promise<RepositoryModel | undefined>;
}

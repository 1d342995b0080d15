/**
 * Loading and unloading at someone's request: a client's (the model repository extension, over
 * HTTP and gRPC) or a Python model's (pb_utils.load_model, unload_model, is_model_ready). Triton's
 * rules once for all of them: the parameters read one way, and only in explicit model control mode.
 */
export interface ModelControl {
  /** Loads (or reloads) `name`; `parameters` as the load request sent them (`config`, refused `file:` keys). */
  requestLoad(name: string, parameters: unknown): Promise<void>;
  /** Unloads `name`; `parameters` as the unload request sent them (`unload_dependents`). */
  requestUnload(name: string, parameters: unknown): Promise<void>;
  /** Whether `name` (at `version`, or any version) is READY; false for a name the server does not know. */
  isReadyModel(name: string, version?: string): boolean;
}

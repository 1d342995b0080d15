/**
 * Triton's model loading API for Python models: model.py's `pb_utils.load_model(name, config,
 * files)`, `unload_model(name, unload_dependents)` and `is_model_ready(name, version)` reach the
 * server's model control (server/model-control.ts), which applies the repository extension's rules
 * (explicit model control mode, the `config` parameter, `file:` parameters refused) in its words.
 * The reply names the call it answers; its error is what the stub raises in model.py.
 */
import type { ModelControl } from '../server/model-control.js';
import { NO_SERVER_HERE, type ControlMessage } from './control-channel.js';

const MAX_NAME = 1024;

export async function runModelControl(message: ControlMessage, control: ModelControl | undefined, caller: string, send: (reply: ControlMessage) => void): Promise<void> {
  const reply = (fields: Omit<ControlMessage, 'op'>): void => send({ op: 'model_control_reply', call: message.call, ...fields });
  try {
    if (!control) throw new Error(`the model loading API needs a server's model control: ${NO_SERVER_HERE}`);
    const name = message.model_name;
    if (typeof name !== 'string' || name === '' || name.length > MAX_NAME) throw new Error('model_name must be a model\'s name');
    if (message.action === 'is_ready') {
      const version = message.model_version;
      if (version !== undefined && typeof version !== 'string') throw new Error('model_version must be a string');
      return reply({ ready: control.isReadyModel(name, version || undefined) });
    }
    // Loading or unloading itself would wait on its own load, or on the request that asks.
    if (name === caller) throw new Error(`model '${caller}' cannot ${String(message.action)} itself`);
    if (message.action === 'load') await control.requestLoad(name, message.parameters);
    else if (message.action === 'unload') await control.requestUnload(name, message.parameters);
    else throw new Error(`unknown model control action '${String(message.action).slice(0, 40)}'`);
    reply({});
  } catch (err) {
    reply({ error: (err as Error).message });
  }
}

/**
 * Loads the project's .proto files (grpc_service.proto, health.proto, and the config core's
 * model_config.proto that grpc_service.proto imports) with protobufjs, and builds @grpc/grpc-js
 * client service definitions from them.
 */
import protobuf from 'protobufjs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceDefinition } from '@grpc/grpc-js';

const packageRoot = fileURLToPath(new URL('../../../', import.meta.url));
const protoDir = path.join(packageRoot, 'src/core/kserve/protos');
const modelConfigProto = path.join(packageRoot, 'src/core/config/model_config.proto');

let root: protobuf.Root | undefined;

/** The protobufjs root with every gebe gRPC message (field names kept in snake_case). */
export function grpcRoot(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  r.resolvePath = (origin, target) => {
    if (target === 'model_config.proto' || target.endsWith('/model_config.proto')) return modelConfigProto;
    return path.isAbsolute(target) ? target : path.join(origin ? path.dirname(origin) : protoDir, target);
  };
  r.loadSync([path.join(protoDir, 'grpc_service.proto'), path.join(protoDir, 'health.proto')], { keepCase: true });
  r.resolveAll();
  root = r;
  return r;
}

/** How plain objects are produced from decoded messages on the client side. */
export const TO_OBJECT: protobuf.IConversionOptions = { longs: Number, enums: String, bytes: Buffer, defaults: true, arrays: true, objects: true, oneofs: true };

/**
 * Request bytes that do not decode as the call's message: the server answers INVALID_ARGUMENT
 * with this wording (in band on a stream).
 */
export class UndecodableMessage {
  constructor(readonly type: string, readonly reason: string) {}

  get message(): string {
    return `the request is not a valid ${this.type} message: ${this.reason}`;
  }
}

/**
 * A @grpc/grpc-js client's service definition: requests are encoded from plain objects, responses
 * decoded into plain objects (TO_OBJECT). The server side speaks bytes (rpc-handler.ts).
 */
export function serviceDefinition(serviceName: string, _side: 'client' = 'client'): ServiceDefinition {
  const service = grpcRoot().lookupService(serviceName);
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const method of Object.values(service.methods)) {
    const req = method.resolvedRequestType!;
    const res = method.resolvedResponseType!;
    definition[method.name] = {
      path: `/${serviceName}/${method.name}`,
      requestStream: Boolean(method.requestStream),
      responseStream: Boolean(method.responseStream),
      requestSerialize: (value: object) => Buffer.from(req.encode(req.fromObject(value as Record<string, unknown>)).finish()),
      requestDeserialize: (buffer: Buffer) => req.decode(buffer),
      responseSerialize: (value: object) => Buffer.from(res.encode(res.fromObject(value as Record<string, unknown>)).finish()),
      responseDeserialize: (buffer: Buffer) => res.toObject(res.decode(buffer), TO_OBJECT),
      originalName: method.name,
    };
  }
  return definition;
}

/** int64/uint64 fields decode as numbers or Long objects depending on their size. */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value && typeof value === 'object' && 'toNumber' in value) return (value as { toNumber(): number }).toNumber();
  return Number(value);
}

/** An int64/uint64 field exactly: a Long prints its exact decimal (signed or unsigned as decoded). */
export function toBigInt(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(Math.trunc(value));
  return BigInt(String(value));
}

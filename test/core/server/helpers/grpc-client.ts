/** A @grpc/grpc-js client built from the project's .proto files, with promise-returning calls. */
import * as grpc from '@grpc/grpc-js';
import { serviceDefinition } from '../../../../src/core/kserve/grpc-proto.js';

export type GrpcClient = grpc.Client & Record<string, (...args: any[]) => any>;

export function grpcClient(address: string, service = 'inference.GRPCInferenceService', credentials = grpc.credentials.createInsecure()): GrpcClient {
  const Ctor = grpc.makeGenericClientConstructor(serviceDefinition(service, 'client'), service);
  return new Ctor(address, credentials) as GrpcClient;
}

export function call<T = any>(client: GrpcClient, method: string, request: object): Promise<T> {
  return new Promise((resolve, reject) => {
    client[method]!(request, (err: grpc.ServiceError | null, res: T) => (err ? reject(err) : resolve(res)));
  });
}

/** Resolves to the gRPC error of a call that must fail. */
export async function callError(client: GrpcClient, method: string, request: object): Promise<grpc.ServiceError> {
  try {
    await call(client, method, request);
  } catch (err) {
    return err as grpc.ServiceError;
  }
  throw new Error(`${method} succeeded but was expected to fail`);
}

/** The first element of an INT32 output of a stream response (its raw_output_contents), as a number. */
export function streamInt32(answer: { infer_response: { outputs?: Array<{ name: string }>; raw_output_contents?: Uint8Array[] } }, output: string): number {
  const at = answer.infer_response.outputs!.findIndex((o) => o.name === output);
  return Buffer.from(answer.infer_response.raw_output_contents![at]!).readInt32LE(0);
}

/** Writes `requests` on one ModelStreamInfer stream without waiting, ends it, and resolves to every response it got. */
export function streamInfer(client: GrpcClient, requests: object[]): Promise<any[]> {
  const stream = client.ModelStreamInfer!();
  const responses: any[] = [];
  const done = new Promise<any[]>((resolve, reject) => {
    stream.on('data', (r: any) => responses.push(r));
    stream.on('end', () => resolve(responses));
    stream.on('error', reject);
  });
  for (const request of requests) stream.write(request);
  stream.end();
  return done;
}

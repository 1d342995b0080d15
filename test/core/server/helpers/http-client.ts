/** Small helpers over fetch for KServe v2 HTTP requests, including the binary tensor extension. */
export interface BinaryInput {
  name: string;
  datatype: string;
  shape: number[];
  bytes: Uint8Array;
}

export async function getJson(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Builds a binary-extension request body: the JSON header, then every input's bytes. */
export function binaryBody(header: Record<string, unknown>, inputs: BinaryInput[]): { body: Buffer; headerLength: number } {
  const json = Buffer.from(JSON.stringify({
    ...header,
    inputs: inputs.map((i) => ({ name: i.name, datatype: i.datatype, shape: i.shape, parameters: { binary_data_size: i.bytes.byteLength } })),
  }));
  return { body: Buffer.concat([json, ...inputs.map((i) => Buffer.from(i.bytes.buffer, i.bytes.byteOffset, i.bytes.byteLength))]), headerLength: json.byteLength };
}

export interface BinaryResponse {
  status: number;
  json: any;
  /** Binary outputs by name (bytes after the JSON header, split by binary_data_size). */
  binary: Map<string, Buffer>;
}

export async function postBinary(url: string, body: Buffer, headerLength: number): Promise<BinaryResponse> {
  const res = await fetch(url, { method: 'POST', headers: { 'Inference-Header-Content-Length': String(headerLength), 'Content-Type': 'application/octet-stream' }, body });
  return readBinaryResponse(res);
}

export async function readBinaryResponse(res: Response): Promise<BinaryResponse> {
  const buf = Buffer.from(await res.arrayBuffer());
  const h = res.headers.get('inference-header-content-length');
  const jsonEnd = h === null ? buf.byteLength : Number(h);
  const json = JSON.parse(buf.toString('utf8', 0, jsonEnd));
  const binary = new Map<string, Buffer>();
  let offset = jsonEnd;
  for (const o of json.outputs ?? []) {
    const size = o.parameters?.binary_data_size;
    if (size !== undefined) {
      binary.set(o.name, buf.subarray(offset, offset + size));
      offset += size;
    }
  }
  return { status: res.status, json, binary };
}

/** Sends requests with node:http over a keep-alive agent (fetch would refuse some malformed headers). */
import http from 'node:http';

export const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

export function rawRequest(base: string, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; body: Buffer; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers: { ...headers, ...(body ? { 'Content-Length': String(body.byteLength) } : {}) }, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

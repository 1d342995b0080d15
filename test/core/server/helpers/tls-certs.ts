/** A CA, a server certificate for 127.0.0.1/localhost and a client certificate signed by it (openssl CLI), in a temporary directory. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCertificates {
  /** ca.pem, server.pem, server.key, client.pem, client.key. */
  pem(name: string): Buffer;
  remove(): void;
}

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-tls-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=gebe test CA');
  for (const who of ['server', 'client']) {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file(`${who}.key`), '-out', file(`${who}.csr`), '-subj', `/CN=${who === 'server' ? 'localhost' : 'gebe client'}`);
    const ext = file(`${who}.ext`);
    execFileSync('sh', ['-c', `printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > '${ext}'`]);
    openssl('x509', '-req', '-in', file(`${who}.csr`), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file(`${who}.pem`), '-days', '2', '-extfile', ext);
  }
  return { pem: (name) => readFileSync(file(name)), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * How the commands that address a running server (infer, perf, warmup, tune with -u; compare
 * --against a server) reach it, with perf_analyzer's flags: `-H Header:Value` (an HTTP header or
 * gRPC metadata on every request) and TLS: an https:// URL with the --ssl-https-* options, or
 * gRPC with --ssl-grpc-use-ssl and the --ssl-grpc-* files. One set of flags, one check, one wording.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import { checkGrpcHeaders, parseRequestHeader } from '../core/kserve/client/request-headers.js';
import { isHttps, type ClientTls, type RemoteConnection } from '../core/kserve/client/connection.js';
import type { RemoteProtocol } from './protocol-option.js';

/** The flags as commander gives them. */
export interface ConnectionFlags {
  header?: string[];
  grpcCompressionAlgorithm?: string;
  sslGrpcUseSsl?: boolean;
  sslGrpcRootCertificationsFile?: string;
  sslGrpcPrivateKeyFile?: string;
  sslGrpcCertificateChainFile?: string;
  sslHttpsVerifyPeer?: string;
  sslHttpsVerifyHost?: string;
  sslHttpsCaCertificatesFile?: string;
  sslHttpsClientCertificateFile?: string;
  sslHttpsClientCertificateType?: string;
  sslHttpsPrivateKeyFile?: string;
  sslHttpsPrivateKeyType?: string;
}

const GRPC_FILES = ['sslGrpcRootCertificationsFile', 'sslGrpcPrivateKeyFile', 'sslGrpcCertificateChainFile'] as const;
const HTTPS_FLAGS = ['sslHttpsVerifyPeer', 'sslHttpsVerifyHost', 'sslHttpsCaCertificatesFile', 'sslHttpsClientCertificateFile',
  'sslHttpsClientCertificateType', 'sslHttpsPrivateKeyFile', 'sslHttpsPrivateKeyType'] as const;

/** The flag a ConnectionFlags key comes from (`sslGrpcUseSsl` → `--ssl-grpc-use-ssl`). */
const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** Adds -H and perf_analyzer's TLS options to `cmd` (`where`: what the server flag is, for the help). */
export function addConnectionOptions(cmd: Command, where = '-u'): Command {
  return cmd
    .option('-H, --header <Header:Value>', `add this header to every request to the server (${where}), as perf_analyzer's -H: an HTTP header, or gRPC metadata (repeatable)`,
      (value: string, previous: string[] = []) => [...previous, value])
    .option('--grpc-compression-algorithm <none|gzip|deflate>', 'with -i grpc: compress the requests, as perf_analyzer (default: none)')
    .option('--ssl-grpc-use-ssl', 'gRPC over TLS, as perf_analyzer')
    .option('--ssl-grpc-root-certifications-file <file>', 'with --ssl-grpc-use-ssl: PEM certificate authorities to trust (default: Node\'s bundled roots)')
    .option('--ssl-grpc-private-key-file <file>', 'with --ssl-grpc-use-ssl: PEM client key, for a server that wants client certificates')
    .option('--ssl-grpc-certificate-chain-file <file>', 'with --ssl-grpc-use-ssl: PEM client certificate chain')
    .option('--ssl-https-verify-peer <0|1>', 'with an https:// URL: check the server\'s certificate (default: 1)')
    .option('--ssl-https-verify-host <0|1|2>', 'with an https:// URL: check that the certificate names the host, 1 or 2 (default: 2); 0 does not')
    .option('--ssl-https-ca-certificates-file <file>', 'with an https:// URL: PEM certificate authorities to trust (default: Node\'s bundled roots)')
    .option('--ssl-https-client-certificate-file <file>', 'with an https:// URL: client certificate (PEM; DER with --ssl-https-client-certificate-type DER), for a server that wants one')
    .option('--ssl-https-private-key-file <file>', 'with an https:// URL: key of the client certificate (PEM; DER with --ssl-https-private-key-type DER)')
    .option('--ssl-https-client-certificate-type <type>', 'PEM or DER: the format of --ssl-https-client-certificate-file (default: PEM)')
    .option('--ssl-https-private-key-type <type>', 'PEM or DER: the format of --ssl-https-private-key-file (default: PEM)');
}

/**
 * The connection the flags describe for `server` over `protocol`, or undefined when they ask for
 * nothing; a usage error naming the flag for what does not fit (a flag without a server, gRPC's
 * files without --ssl-grpc-use-ssl, https options for an http:// URL, an unreadable file).
 * `addServer`: the flag that names a server, as the errors suggest it.
 */
export function parseConnection(flags: ConnectionFlags, server: string | undefined, protocol: RemoteProtocol, addServer = '-u host:port'): RemoteConnection | undefined {
  const given = [...(flags.header?.length ? ['header'] : []), ...(flags.sslGrpcUseSsl ? ['sslGrpcUseSsl'] : []), 'grpcCompressionAlgorithm', ...GRPC_FILES, ...HTTPS_FLAGS]
    .filter((k) => k === 'header' || k === 'sslGrpcUseSsl' || flags[k as keyof ConnectionFlags] !== undefined);
  if (given.length === 0) return undefined;
  if (server === undefined) {
    throw new UsageError(`${given[0] === 'header' ? '-H/--header' : flagName(given[0]!)} is about a server's connection: add ${addServer}`);
  }
  const headers = flags.header?.map((h) => parseRequestHeader('-H', h));
  if (headers && protocol === 'grpc') checkGrpcHeaders('-H', headers);
  const tls = protocol === 'grpc' ? grpcTls(flags) : httpsTls(flags, server);
  const compression = grpcCompression(flags.grpcCompressionAlgorithm, protocol);
  return { ...(headers ? { headers } : {}), ...(tls ? { tls } : {}), ...(compression ? { grpcCompression: compression } : {}) };
}

/** perf_analyzer's --grpc-compression-algorithm: none (default), gzip or deflate; gRPC only. */
function grpcCompression(value: string | undefined, protocol: RemoteProtocol): 'gzip' | 'deflate' | undefined {
  if (value === undefined) return undefined;
  const algorithm = value.toLowerCase();
  if (algorithm !== 'none' && algorithm !== 'gzip' && algorithm !== 'deflate') throw new UsageError(`--grpc-compression-algorithm ${value}: expected none, gzip or deflate`);
  if (protocol !== 'grpc' && algorithm !== 'none') throw new UsageError('--grpc-compression-algorithm compresses gRPC requests: add -i grpc');
  return algorithm === 'none' ? undefined : algorithm;
}

function grpcTls(flags: ConnectionFlags): ClientTls | undefined {
  const https = HTTPS_FLAGS.find((k) => flags[k] !== undefined);
  if (https) throw new UsageError(`${flagName(https)} is for an https:// server; for gRPC over TLS use --ssl-grpc-use-ssl and the --ssl-grpc-* files`);
  if (!flags.sslGrpcUseSsl) {
    const file = GRPC_FILES.find((k) => flags[k] !== undefined);
    if (file) throw new UsageError(`${flagName(file)} needs --ssl-grpc-use-ssl`);
    return undefined;
  }
  if ((flags.sslGrpcPrivateKeyFile === undefined) !== (flags.sslGrpcCertificateChainFile === undefined)) {
    throw new UsageError('--ssl-grpc-private-key-file and --ssl-grpc-certificate-chain-file go together: a client certificate needs its key');
  }
  return {
    ...pem('sslGrpcRootCertificationsFile', flags.sslGrpcRootCertificationsFile, 'ca'),
    ...pem('sslGrpcCertificateChainFile', flags.sslGrpcCertificateChainFile, 'cert'),
    ...pem('sslGrpcPrivateKeyFile', flags.sslGrpcPrivateKeyFile, 'key'),
    verifyPeer: true, verifyHost: true,
  };
}

function httpsTls(flags: ConnectionFlags, server: string): ClientTls | undefined {
  if (flags.sslGrpcUseSsl || GRPC_FILES.some((k) => flags[k] !== undefined)) {
    throw new UsageError(`${flags.sslGrpcUseSsl ? '--ssl-grpc-use-ssl' : flagName(GRPC_FILES.find((k) => flags[k] !== undefined)!)} is for gRPC (-i grpc); HTTP over TLS is an https:// URL`);
  }
  const https = isHttps(server);
  const set = HTTPS_FLAGS.find((k) => flags[k] !== undefined);
  if (!https) {
    if (set) throw new UsageError(`${flagName(set)} is for an https:// server; the server given is ${server}`, `write it https://${server.replace(/^[a-z]+:\/\//i, '')}`);
    return undefined;
  }
  const format = (key: 'sslHttpsClientCertificateType' | 'sslHttpsPrivateKeyType') => choice(key, (flags[key] ?? 'PEM').toUpperCase(), ['PEM', 'DER']) as FileFormat;
  const certificateFormat = format('sslHttpsClientCertificateType');
  const keyFormat = format('sslHttpsPrivateKeyType');
  if ((flags.sslHttpsPrivateKeyFile === undefined) !== (flags.sslHttpsClientCertificateFile === undefined)) {
    throw new UsageError('--ssl-https-client-certificate-file and --ssl-https-private-key-file go together: a client certificate needs its key');
  }
  const verifyPeer = choice('sslHttpsVerifyPeer', flags.sslHttpsVerifyPeer ?? '1', ['0', '1']);
  const verifyHost = choice('sslHttpsVerifyHost', flags.sslHttpsVerifyHost ?? '2', ['0', '1', '2']);
  return {
    ...pem('sslHttpsCaCertificatesFile', flags.sslHttpsCaCertificatesFile, 'ca'),
    ...pem('sslHttpsClientCertificateFile', flags.sslHttpsClientCertificateFile, 'cert', certificateFormat),
    ...pem('sslHttpsPrivateKeyFile', flags.sslHttpsPrivateKeyFile, 'key', keyFormat),
    verifyPeer: verifyPeer === '1', verifyHost: verifyHost !== '0',
  };
}

function choice(key: keyof ConnectionFlags, value: string, allowed: string[]): string {
  if (!allowed.includes(value)) throw new UsageError(`${flagName(key)} ${value}: expected ${allowed.join(' or ')}`);
  return value;
}

type FileFormat = 'PEM' | 'DER';

/** The flags that say a file's format, as perf_analyzer has them (the others are PEM only). */
const TYPE_FLAGS: Partial<Record<keyof ConnectionFlags, keyof ConnectionFlags>> = {
  sslHttpsClientCertificateFile: 'sslHttpsClientCertificateType',
  sslHttpsPrivateKeyFile: 'sslHttpsPrivateKeyType',
};

/**
 * A certificate or key file a flag names, as `field` of ClientTls (PEM text, what Node's TLS
 * takes; a DER file is converted); a usage error naming the flag when it cannot be read or is not
 * in the format given.
 */
function pem(key: keyof ConnectionFlags, file: string | undefined, field: 'ca' | 'cert' | 'key', format: FileFormat = 'PEM'): Partial<ClientTls> {
  if (file === undefined) return {};
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    throw new UsageError(`${flagName(key)} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  const text = bytes.toString('utf8');
  // A file said to be DER that is PEM after all is taken as it is.
  if (format === 'DER' && !text.includes('-----BEGIN ')) return { [field]: derToPem(bytes, field === 'key', `${flagName(key)} ${file}`) };
  if (!text.includes('-----BEGIN ')) {
    const typeFlag = TYPE_FLAGS[key];
    throw new UsageError(`${flagName(key)} ${file}: not a PEM file (no -----BEGIN line)${typeFlag ? `; for a DER file add ${flagName(typeFlag)} DER` : ''}`);
  }
  return { [field]: text };
}

/** A DER certificate or private key (PKCS#8, PKCS#1 or SEC1) as PEM; a usage error saying what it is not. */
function derToPem(bytes: Buffer, isKey: boolean, what: string): string {
  if (!isKey) {
    try {
      return new X509Certificate(bytes).toString();
    } catch (err) {
      throw new UsageError(`${what}: not a DER certificate (${(err as Error).message})`);
    }
  }
  for (const type of ['pkcs8', 'pkcs1', 'sec1'] as const) {
    try {
      return createPrivateKey({ key: bytes, format: 'der', type }).export({ format: 'pem', type: 'pkcs8' }).toString();
    } catch {
      // the next encoding
    }
  }
  throw new UsageError(`${what}: not a DER private key (PKCS#8, PKCS#1 or SEC1)`);
}

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A self-signed certificate and its key, PEM. `cert` doubles as the CA to trust. */
export interface TestCertificate {
  key: string;
  cert: string;
  /** A file holding `cert`, for PUSHHUB_EXTRA_CA_FILE. */
  certFile: string;
}

let cached: TestCertificate | undefined;

/**
 * A self-signed P-256 certificate for 127.0.0.1 and localhost (subjectAltName IP:127.0.0.1,
 * DNS:localhost — DESIGN.md "Facts for testing the senders"), made once per test process with
 * the openssl command line.
 */
export function testCertificate(): TestCertificate {
  if (cached) return cached;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pushhub-tls-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ], { stdio: 'ignore' });
  cached = { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8'), certFile };
  return cached;
}

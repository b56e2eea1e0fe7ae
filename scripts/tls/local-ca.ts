import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The files make-local-ca.sh leaves in its directory (PEM). */
export interface LocalCertificates {
  /** The CA certificate devices verify the server with. */
  caFile: string;
  certFile: string;
  keyFile: string;
  /** What the script did: made or kept the CA and the server certificate (no key material). */
  lines: string[];
}

/** make-local-ca.sh beside this file (jest), or in the source tree above dist/scripts/tls (npm start). */
const SCRIPT = [join(__dirname, 'make-local-ca.sh'), join(__dirname, '..', '..', '..', 'scripts', 'tls', 'make-local-ca.sh')].find((f) =>
  existsSync(f),
);

/**
 * A local CA and a server certificate signed by it in `dir`, made on the first call and reused
 * after (scripts/tls/make-local-ca.sh, which an operator runs by hand for docker-compose.yml).
 * `names`: host names or addresses the certificate must name besides localhost and the rest.
 */
export async function localCertificates(dir: string, names: readonly string[] = []): Promise<LocalCertificates> {
  if (!SCRIPT) throw new Error(`scripts/tls/make-local-ca.sh not found from ${__dirname}`);
  const { stdout } = await promisify(execFile)('bash', [SCRIPT, dir, ...names]).catch((e: Error & { stderr?: string }) => {
    throw new Error(`making a local certificate in ${dir} failed: ${e.stderr?.trim() || e.message}`);
  });
  return {
    caFile: join(dir, 'ca.crt'),
    certFile: join(dir, 'server.crt'),
    keyFile: join(dir, 'server.key'),
    lines: stdout.trim().split('\n'),
  };
}

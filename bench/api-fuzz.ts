/**
 * `npm run fuzz`: schemathesis (PyPI, installed by scripts/install-schemathesis.sh into .tools/)
 * against the served /openapi.json of a service started on throw-away backends, authenticated
 * as a fresh user with an API key. Prints requests sent and 5xx answers (goal: 0), from its HAR.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { apiClient, createAccount } from './support/api';
import { startBackends } from './support/backends';
import { createCleanup } from './support/cleanup';
import { REPO_ROOT } from './support/paths';
import { startService } from './support/service-process';

const ADMIN_TOKEN = 'fuzz-admin-token-0123456789';
const MAX_EXAMPLES = process.env.FUZZ_MAX_EXAMPLES ?? '20';

const har = z.object({
  log: z.object({
    entries: z.array(z.object({ request: z.object({ method: z.string(), url: z.string() }), response: z.object({ status: z.number() }) })),
  }),
});

function run(command: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<void> {
  const cleanup = createCleanup();
  try {
    const backends = await startBackends(cleanup);
    const service = await startService(backends, cleanup, { ADMIN_TOKEN, RATE_LIMIT_MULTIPLIER: '1000' });
    const account = await createAccount(service.baseUrl);
    const me = await account.call<{ id: string }>('GET', '/api/v1/auth/me');
    await apiClient(service.baseUrl, ADMIN_TOKEN)('PUT', `/api/v1/admin/users/${me.id}/plan`, { plan: 'enterprise' });
    const { key } = await account.call<{ key: string }>('POST', '/api/v1/api-keys', { name: 'fuzz' });
    await account.call('POST', '/api/v1/devices', { name: 'fuzz-device', projectId: account.projectId });

    const harPath = join(backends.dir, 'schemathesis.har');
    const started = Date.now();
    const exit = await run(join(REPO_ROOT, '.tools', 'schemathesis', 'bin', 'st'), [
      'run',
      `${service.baseUrl}/openapi.json`,
      '--url',
      service.baseUrl,
      '-H',
      `Authorization: Bearer ${account.token}`,
      '-H',
      `X-API-Key: ${key}`,
      '--checks',
      'all',
      // Logging out would revoke the run's own bearer token and leave every later call a 401.
      '--exclude-path',
      '/api/v1/auth/logout',
      '--max-examples',
      MAX_EXAMPLES,
      '--report',
      'har',
      '--report-har-path',
      harPath,
    ]);
    const entries = har.parse(JSON.parse(await readFile(harPath, 'utf8'))).log.entries;
    const serverErrors = entries.filter((e) => e.response.status >= 500);
    const byStatus = new Map<number, number>();
    for (const e of entries) byStatus.set(e.response.status, (byStatus.get(e.response.status) ?? 0) + 1);
    process.stdout.write(
      `\nschemathesis: ${entries.length} requests in ${((Date.now() - started) / 1000).toFixed(0)} s, ` +
        `${serverErrors.length} answered 5xx (goal 0); exit code ${exit}\n` +
        `statuses: ${[...byStatus.entries()]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')}\n` +
        serverErrors
          .slice(0, 20)
          .map((e) => `  5xx: ${e.response.status} ${e.request.method} ${e.request.url}\n`)
          .join(''),
    );
  } finally {
    await cleanup.run();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});

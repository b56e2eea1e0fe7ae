import { mkdtemp, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createLogger } from '../../common/logger';
import { stopLeftovers } from '../../scripts/start/leftovers';
import { commandLine, runningPids, workingDir } from '../../scripts/start/proc';
import { ensureTemporalCli } from '../../scripts/temporal-cli';
import { PROJECT_ROOT, TEMP_DIR_PREFIX } from '../harness/state';
import { connectAsDevice, createDevice, createProject, registerUser } from '../helpers/fixtures';
import { eventually } from '../helpers/wait';
import { startNpmStart, type StartProcess } from './start-process';

/**
 * `npm start` after a crash (docs/operations.md, "npm start after a crash"): the node alone
 * SIGKILLed, as the OOM killer does, and started again at once in the same directory; the user,
 * project and device made before are there, and so is the device's broker account. Runs in a
 * private temp dir (0700: as root, PostgreSQL's `postgres` user cannot enter it) with its own
 * Redis and Mosquitto (DDS_LOCAL_SERVERS=own), never the machine's or the jest run's.
 */

let dir = '';
let clusterDir: string | null = null;
let node: StartProcess | undefined;
let env: Record<string, string> = {};

/** Processes whose command line or working directory is in one of `paths`: the servers of that npm start. */
function processesIn(paths: string[]): string[] {
  return runningPids().flatMap((pid) => {
    const argv = commandLine(pid).join(' ');
    const cwd = workingDir(pid) ?? '';
    return paths.some((path) => argv.includes(path) || cwd.startsWith(path)) ? [`${pid} ${argv} (in ${cwd})`] : [];
  });
}

const paths = (): string[] => [dir, ...(clusterDir ? [clusterDir] : [])];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), `${TEMP_DIR_PREFIX}start-`));
  env = {
    TEMPORAL_CLI_PATH: await ensureTemporalCli(PROJECT_ROOT),
    DDS_LOCAL_SERVERS: 'own',
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE_MS: '2000',
  };
});

afterAll(async () => {
  if (node && node.child.exitCode === null) {
    node.child.kill('SIGKILL');
    await node.exited;
  }
  await stopLeftovers(join(dir, 'data'), createLogger('silent', 'test')).catch(() => undefined);
  for (const line of processesIn(paths())) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
  // As root the cluster lives in ~postgres/dds/<hash>/pg (scripts/start/cluster-dir.ts).
  if (clusterDir && basename(dirname(dirname(clusterDir))) === 'dds') await rm(dirname(clusterDir), { recursive: true, force: true });
}, 60_000);

describe('npm start after its node was SIGKILLed', () => {
  it('starts again on the same data, keeps the account, project, device and broker account, and leaves nothing behind on SIGINT', async () => {
    node = await startNpmStart(dir, env);
    clusterDir = await readlink(join(dir, 'data', 'pg')).catch(() => join(dir, 'data', 'pg'));
    const user = await registerUser(node.request);
    const project = await createProject(node.request, user);
    const device = await createDevice(node.request, user, project.id);

    node.child.kill('SIGKILL');
    await node.exited;
    node = await startNpmStart(dir, env);

    const login = await node.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: 'correct horse battery' } });
    expect(login.status).toBe(200);
    const devices = await node.request('GET', `/api/v1/devices?projectId=${project.id}`, { token: login.body.data.accessToken });
    expect(devices.status).toBe(200);
    expect(devices.body.data.devices.map((d: { id: string }) => d.id)).toEqual([device.id]);
    const asDevice = await connectAsDevice(node.mqttUrl, device);
    await asDevice.endAsync();

    node.child.kill('SIGINT');
    expect(await node.exited).toBe(0);
    await eventually(() => expect(processesIn(paths())).toEqual([]), 5000);
  }, 120_000);
});

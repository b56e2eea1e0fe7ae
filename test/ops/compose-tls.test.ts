/**
 * docker-compose.yml's TLS configs, run on this machine's Mosquitto 2.0 and haproxy 2.6 (the
 * compose images' versions) with only their container paths and ports replaced: the broker config
 * deploy/mosquitto/tls.conf (which includes deploy/mosquitto/mosquitto.conf) and haproxy with
 * deploy/haproxy.cfg then deploy/haproxy-tls.cfg, each presenting a certificate of the local CA
 * (scripts/tls/make-local-ca.sh). A client with the CA gets through; one without it is refused.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mqtt from 'mqtt';
import { findExecutable } from '../../scripts/dev-servers/find-executable';
import { freePort } from '../../scripts/dev-servers/free-port';
import { findDeviceAuthPlugin, findDynsecPlugin, findMosquitto } from '../../scripts/dev-servers/mosquitto-config';
import { poll, type ServerProcess, spawnServer } from '../../scripts/dev-servers/server-process';
import { type LocalCertificates, localCertificates } from '../../scripts/tls/local-ca';
import { PROJECT_ROOT, TEMP_DIR_PREFIX } from '../harness/state';

let dir: string;
let certificates: LocalCertificates;
let ca: Buffer;
const running: ServerProcess[] = [];
let gateway: Server | undefined;

const deployFile = (...path: string[]) => readFile(join(PROJECT_ROOT, 'deploy', ...path), 'utf8');

/** `text` with each [from, to] replaced, failing when a `from` is not there (the file changed shape). */
function replaced(text: string, pairs: [RegExp, string][]): string {
  return pairs.reduce((out, [from, to]) => {
    if (!from.test(out)) throw new Error(`no ${from} in the config`);
    return out.replace(from, to);
  }, text);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), `${TEMP_DIR_PREFIX}compose-tls-`));
  certificates = await localCertificates(join(dir, 'tls'));
  ca = await readFile(certificates.caFile);
});

afterAll(async () => {
  await Promise.allSettled(running.map((server) => server.stop()));
  await new Promise((done) => (gateway ? gateway.close(done) : done(undefined)));
  await rm(dir, { recursive: true, force: true });
});

test('the compose broker serves MQTT over TLS with the certificate, and the accounts of mosquitto.conf', async () => {
  const data = join(dir, 'mosquitto');
  await mkdir(join(data, 'conf.d'), { recursive: true });
  const dynsecFile = join(data, 'dynamic-security.json');
  await promisify(execFile)('mosquitto_ctrl', ['dynsec', 'init', dynsecFile, 'admin', 'admin password']);
  const [plainPort, tlsPort] = [await freePort(), await freePort()];
  await writeFile(
    join(data, 'conf.d', 'mosquitto.conf'),
    replaced(await deployFile('mosquitto', 'mosquitto.conf'), [
      [/^listener 1883$/m, `listener ${plainPort} 127.0.0.1`],
      [/^plugin .*dds_device_auth\.so$/m, `plugin ${findDeviceAuthPlugin()}`],
      [/^plugin_opt_redis .*$/m, 'plugin_opt_redis 127.0.0.1:1'],
      [/^plugin .*mosquitto_dynamic_security\.so$/m, `plugin ${findDynsecPlugin()}`],
      [/^plugin_opt_config_file .*$/m, `plugin_opt_config_file ${dynsecFile}`],
      [/^persistence_location .*$/m, `persistence_location ${data}/`],
    ]),
  );
  const main = join(data, 'mosquitto-main.conf');
  const tlsConf = replaced(await deployFile('mosquitto', 'tls.conf'), [
    [/^include_dir \/mosquitto\/config\/conf\.d$/m, `include_dir ${join(data, 'conf.d')}`],
    [/^listener 8883$/m, `listener ${tlsPort} 127.0.0.1`],
    [/\/mosquitto\/certs\/server\.crt/, certificates.certFile],
    [/\/mosquitto\/certs\/server\.key/, certificates.keyFile],
  ]);
  await writeFile(main, `${tlsConf}\nuser ${userInfo().username}\n`);
  const broker = await spawnServer('mosquitto', findMosquitto(), ['-c', main], join(data, 'mosquitto.log'));
  running.push(broker);

  const login = { username: 'admin', password: 'admin password', reconnectPeriod: 0, connectTimeout: 3000 };
  const verified = await poll(
    broker,
    () => mqtt.connectAsync(`mqtts://localhost:${tlsPort}`, { ...login, ca, rejectUnauthorized: true }),
    10_000,
  );
  await verified.publishAsync('compose/tls', 'ok', { qos: 1 });
  await verified.endAsync();
  await expect(mqtt.connectAsync(`mqtts://localhost:${tlsPort}`, { ...login, rejectUnauthorized: true })).rejects.toMatchObject({
    code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  });
  // The plain listener (the compose network's, and the host's loopback) is still there.
  await (await mqtt.connectAsync(`mqtt://127.0.0.1:${plainPort}`, login)).endAsync();
}, 30_000);

/** GET over HTTPS with `ca` (or the system's CAs); resolves with the status and the body. */
function httpsGet(url: string, ca?: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ...(ca ? { ca } : {}), rejectUnauthorized: true }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('haproxy with haproxy.cfg and haproxy-tls.cfg serves HTTPS and tells the gateway it did', async () => {
  const haproxy = findExecutable('haproxy', ['/usr/sbin']);
  if (!haproxy) throw new Error("haproxy not found: run `npm run setup` (installs Debian's haproxy)");
  const gatewayPort = await freePort();
  gateway = createServer((req, res) => res.end(JSON.stringify({ proto: req.headers['x-forwarded-proto'] ?? null })));
  await new Promise<void>((done) => gateway?.listen(gatewayPort, '127.0.0.1', done));
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const base = replaced(await deployFile('haproxy.cfg'), [
    [/^ {2}bind :80$/m, `  bind 127.0.0.1:${httpPort}`],
    [/^resolvers docker\n(?: .*\n)*/m, ''],
    [/ resolvers docker$/m, ''],
    ...[1, 2, 3].map((n): [RegExp, string] => [new RegExp(`gateway-${n}:3000`), `127.0.0.1:${gatewayPort}`]),
  ]);
  const tls = replaced(await deployFile('haproxy-tls.cfg'), [
    [/bind :443 ssl crt \/usr\/local\/etc\/haproxy\/certs\/server\.crt/, `bind 127.0.0.1:${httpsPort} ssl crt ${certificates.certFile}`],
  ]);
  await writeFile(join(dir, 'haproxy.cfg'), base);
  await writeFile(join(dir, 'tls.cfg'), tls);
  const balancer = await spawnServer(
    'haproxy',
    haproxy,
    ['-db', '-f', join(dir, 'haproxy.cfg'), '-f', join(dir, 'tls.cfg')],
    join(dir, 'haproxy.log'),
  );
  running.push(balancer);

  const answered = await poll(
    balancer,
    async () => {
      const res = await httpsGet(`https://localhost:${httpsPort}/healthz`, ca);
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      return res;
    },
    15_000,
  );
  expect(JSON.parse(answered.body)).toEqual({ proto: 'https' });
  await expect(httpsGet(`https://localhost:${httpsPort}/healthz`)).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
}, 30_000);

import { resolve } from 'node:path';
import { readLocalEndpoints } from '../local-endpoints';
import { OptionsError, readOptions } from './options';
import { simulate } from './simulate';

const USAGE = `Usage: npm run simulate -- --devices 20 --rate 2 [--email you@example.com --password ...]
  --devices N       simulated devices (1-1000, default 5), named sim-001 ...
  --device-name N   run this device of the project (repeat for more): an existing one is joined
                    (its token is regenerated: the real device needs the new one), a missing one created
  --rate R          values per second per device (default 1)
  --url URL         the service (env DDS_URL; default: the running npm start, else http://localhost:3000)
  --mqtt-url URL    the broker devices connect to (env DDS_MQTT_URL; default: npm start's broker, else mqtt://localhost:1883);
                    mqtts://host:8883 speaks TLS and refuses a broker whose certificate does not verify
  --ca FILE         the CA certificate (PEM) an mqtts:// broker must verify against (env DDS_MQTT_CA; default:
                    npm start's local CA with its broker, else the system's CAs)
  --topic-root T    MQTT topic root (env MQTT_TOPIC_ROOT; default: npm start's, else dds)
  --email/--password  the account (env DDS_EMAIL / DDS_PASSWORD); registered when unknown
  --project P       the project: its id, or a name to reuse or create (default Simulator)
  --template T      a template of the project, by id or name: devices made get it (joined ones keep
                    theirs), and every device reports values on the template's pins, in their ranges
  --firmware V      the firmware version devices start on, a semantic version (default 1.0.0); they answer
                    OTA jobs (docs/jobs.md) and run the new version once updated
  --ota-fail F      the share of devices (0-1, default 0) whose OTA updates fail after the download:
                    every 1/F-th device (with 0.2: sim-005, sim-010, ...), the same ones on every run
  --duration S      stop after S seconds (default: until Ctrl-C)`;

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2), process.env, readLocalEndpoints(resolve('data')) ?? {});
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  const tty = process.stdout.isTTY;
  const report = await simulate(options, {
    signal: stop.signal,
    onStart: (line) => process.stdout.write(`${line}\n`),
    onProgress: (line) => process.stdout.write(tty ? `\r\x1b[K${line}` : `${line}\n`),
    // Above the progress line, which the next tick writes again.
    onLog: (line) => process.stdout.write(tty ? `\r\x1b[K${line}\n` : `${line}\n`),
  });
  process.stdout.write(
    `${tty ? '\n' : ''}Stopped: ${report.deviceIds.length} devices sent ${report.published} values and answered ` +
      `${report.commands} commands in ${report.seconds.toFixed(0)} s (project ${report.projectId}).\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(
    `${err instanceof OptionsError ? `${err.message}\n\n${USAGE}` : err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});

import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { Backends } from './backends';
import type { Cleanup } from './cleanup';
import type { BaselineCommand, BaselineEvent, BaselineReport } from './baseline-protocol';

export interface BaselineProcess {
  pid: number;
  report(): Promise<BaselineReport>;
}

const READY_TIMEOUT_MS = 15_000;

/** Starts the baseline subscriber in its own process (its own CPU, like the service) on `topicRoot`. */
export async function startBaseline(backends: Backends, topicRoot: string, cleanup: Cleanup): Promise<BaselineProcess> {
  const child = fork(join(__dirname, 'baseline-subscriber.js'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: {
      PATH: process.env.PATH ?? '',
      REDIS_URL: backends.redisUrl,
      MQTT_URL: backends.mqttUrl,
      MQTT_USERNAME: backends.mqttUsername,
      MQTT_PASSWORD: backends.mqttPassword,
      BASELINE_TOPIC_ROOT: topicRoot,
    },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanup.add('baseline subscriber', async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  const next = <T extends BaselineEvent['type']>(type: T): Promise<Extract<BaselineEvent, { type: T }>> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`baseline subscriber sent no ${type} within ${READY_TIMEOUT_MS} ms`)),
        READY_TIMEOUT_MS,
      );
      const onMessage = (event: BaselineEvent): void => {
        if (event.type !== type) return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(event as Extract<BaselineEvent, { type: T }>);
      };
      child.on('message', onMessage);
      void exited.then(() => reject(new Error('baseline subscriber exited')));
    });
  await next('ready');
  return {
    pid: child.pid as number,
    async report() {
      const answer = next('report');
      const command: BaselineCommand = { type: 'report' };
      child.send(command);
      return answer;
    },
  };
}

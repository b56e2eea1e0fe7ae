import { readFile } from 'node:fs/promises';
import { managementApi, type SimulatedTemplate } from './api';
import { startDevice, type DeviceCounters, type RunningDevice } from './device';
import type { SimulateOptions } from './options';
import { failsUpdate } from './ota';

export interface SimulationReport extends DeviceCounters {
  projectId: string;
  deviceIds: string[];
  /** The template given with --template, or null. */
  templateId: string | null;
  seconds: number;
}

export interface SimulationHooks {
  /** Ends the run (Ctrl-C in the CLI); `options.duration` ends it too. */
  signal?: AbortSignal;
  /** Called once the devices are ready: which project, and which devices were joined or made. */
  onStart?: (line: string) => void;
  /** Called about once a second with the running totals. */
  onProgress?: (line: string) => void;
  /** Called with one line per step of a device's OTA update (offered, installing, done or failed). */
  onLog?: (line: string) => void;
}

function waitForEnd(signal: AbortSignal | undefined, durationS: number | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = durationS === undefined ? null : setTimeout(resolve, durationS * 1000);
    signal?.addEventListener(
      'abort',
      () => {
        if (timer) clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** The names of the devices to run: those given, else sim-001 … sim-NNN. */
export function deviceNamesOf(options: Pick<SimulateOptions, 'devices' | 'deviceNames'>): string[] {
  if (options.deviceNames.length > 0) return [...new Set(options.deviceNames)];
  return Array.from({ length: options.devices }, (_, i) => `sim-${String(i + 1).padStart(3, '0')}`);
}

/**
 * `npm run simulate`: signs in (registering if needed), joins or creates the project and its
 * devices through the management API, then runs every device on MQTT until stopped.
 */
export async function simulate(options: SimulateOptions, hooks: SimulationHooks = {}): Promise<SimulationReport> {
  const ca = options.ca
    ? await readFile(options.ca).catch((e: Error) => {
        throw new Error(`--ca ${options.ca}: ${e.message}`);
      })
    : undefined;
  const api = managementApi(options.url);
  await api.signIn(options.email, options.password);
  const project = await api.project(options.project);
  const projectId = project.id;
  const template: SimulatedTemplate | null = options.template ? await api.template(projectId, options.template) : null;
  const devices = await api.devices(projectId, deviceNamesOf(options), template?.id);
  const joined = devices.filter((d) => d.joined).map((d) => d.name);
  const made = devices.length - joined.length;
  hooks.onStart?.(
    `${project.created ? 'Created' : 'Joined'} project ${project.name} (${projectId}): ${made} device${made === 1 ? '' : 's'} made` +
      (template ? ` from template ${template.name}` : '') +
      (joined.length ? `, ${joined.length} joined with a new token (${joined.join(', ')})` : ''),
  );
  const elsewhere = template ? devices.filter((d) => d.joined && d.templateId !== template.id).map((d) => d.name) : [];
  if (template && elsewhere.length) {
    hooks.onStart?.(`Kept their own template (set it on the device page to change): ${elsewhere.join(', ')}`);
  }
  const pins = template?.pins;

  const counters: DeviceCounters = { published: 0, commands: 0, errors: 0, updated: 0, updateFailed: 0 };
  const log = hooks.onLog ?? (() => undefined);
  const started = Date.now();
  const running: RunningDevice[] = [];
  try {
    for (const [i, device] of devices.entries()) {
      if (hooks.signal?.aborted) break;
      const otaFail = failsUpdate(i, options.otaFail);
      running.push(await startDevice(device, i, { ...options, pins, ca, otaFail, log }, counters));
    }
    const progress = setInterval(() => {
      const seconds = (Date.now() - started) / 1000;
      hooks.onProgress?.(
        `${running.length}/${devices.length} devices · ${counters.published} values (${(counters.published / seconds).toFixed(1)}/s) · ` +
          `${counters.commands} commands answered · ` +
          (counters.updated + counters.updateFailed ? `${counters.updated} updated, ${counters.updateFailed} updates failed · ` : '') +
          `${counters.errors} errors · ${seconds.toFixed(0)} s`,
      );
    }, 1000);
    await waitForEnd(hooks.signal, options.duration);
    clearInterval(progress);
  } finally {
    await Promise.allSettled(running.map((d) => d.stop()));
  }
  return {
    ...counters,
    projectId,
    deviceIds: devices.map((d) => d.id),
    templateId: template?.id ?? null,
    seconds: (Date.now() - started) / 1000,
  };
}

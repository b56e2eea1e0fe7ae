import type { IngestDoor, Metrics } from '../../common/metrics';
import type { Ingest } from './ingest';

/**
 * The one ingest pipeline as seen through one door: same calls, each value counted by door and
 * outcome (`stored` or its rejection code, `error` when it threw) and timed.
 */
export function meteredIngest(ingest: Ingest, metrics: Metrics, door: IngestDoor): Ingest {
  const through = async (input: Parameters<Ingest>[0]): ReturnType<Ingest> => {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const result = await ingest(input);
      metrics.ingest.observe(door, result.ok ? 'stored' : result.code, seconds());
      return result;
    } catch (err) {
      metrics.ingest.observe(door, 'error', seconds());
      throw err;
    }
  };
  const importReadings: Ingest['importReadings'] = async (deviceId, readings) => {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9 / Math.max(1, readings.length);
    try {
      const imported = await ingest.importReadings(deviceId, readings);
      const outcomes = imported.ok ? imported.results.map((r) => (r.ok ? 'stored' : r.code)) : readings.map(() => imported.code);
      const each = seconds();
      for (const outcome of outcomes) metrics.ingest.observe(door, outcome, each);
      return imported;
    } catch (err) {
      const each = seconds();
      for (let i = 0; i < readings.length; i += 1) metrics.ingest.observe(door, 'error', each);
      throw err;
    }
  };
  return Object.assign(through, { drain: ingest.drain, importReadings, acknowledge: ingest.acknowledge });
}

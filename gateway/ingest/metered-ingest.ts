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
  // A bulk import counts each reading by its outcome, and is timed once, as one ingest call.
  const importReadings: Ingest['importReadings'] = async (deviceId, readings) => {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const imported = await ingest.importReadings(deviceId, readings);
      const outcomes = new Map<string, number>();
      if (!imported.ok) outcomes.set(imported.code, readings.length);
      else {
        for (const r of imported.results) {
          const outcome = r.ok ? 'stored' : r.code;
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        }
      }
      metrics.ingest.observeMany(door, outcomes, seconds());
      return imported;
    } catch (err) {
      metrics.ingest.observeMany(door, new Map([['error', readings.length]]), seconds());
      throw err;
    }
  };
  return Object.assign(through, { drain: ingest.drain, importReadings, acknowledge: ingest.acknowledge });
}

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The doors a value can come in by (SPEC §1 rule 2): each is a label value of the ingest series. */
export const INGEST_DOORS = ['mqtt', 'socket', 'data', 'external', 'simple'] as const;
export type IngestDoor = (typeof INGEST_DOORS)[number];

/** Twin calls the gateway makes: signals (fire and forget) and Updates (answered). */
export type TwinCallKind = 'signal' | 'update';

/**
 * Every Prometheus series the service exposes, on one registry per gateway node (two nodes in one
 * process, as in the tests, must not add up each other's counts). Names are listed in
 * docs/operations.md and used by deploy/grafana/dashboards/dds.json.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const httpDuration = new Histogram({
    name: 'dds_http_request_duration_seconds',
    help: 'HTTP request duration by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const ingestValues = new Counter({
    name: 'dds_ingest_values_total',
    help: 'Values through the ingest pipeline by door and outcome (stored or the rejection code)',
    labelNames: ['door', 'outcome'] as const,
    registers,
  });
  const ingestDuration = new Histogram({
    name: 'dds_ingest_duration_seconds',
    help: 'Time the ingest pipeline takes per value, by door',
    labelNames: ['door'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers,
  });
  const processFaults = new Counter({
    name: 'dds_process_faults_total',
    help: 'Unhandled rejections and uncaught exceptions the node logged and survived',
    registers,
  });
  const mqttMessages = new Counter({
    name: 'dds_mqtt_messages_total',
    help: 'MQTT device messages handled',
    registers,
  });
  const mqttDropped = new Counter({
    name: 'dds_mqtt_values_dropped_total',
    help: 'MQTT values dropped (oversized or invalid pin)',
    registers,
  });
  const mqttRetries = new Counter({
    name: 'dds_mqtt_retries_total',
    help: 'Tries of an MQTT device message again after its handling failed (a dependency down or slow)',
    registers,
  });
  const mqttDuplicates = new Counter({
    name: 'dds_mqtt_duplicates_total',
    help: 'MQTT device values found stored already by an earlier try or delivery, and not stored again',
    registers,
  });
  const deviceValuesDropped = new Counter({
    name: 'dds_device_values_dropped_total',
    help: "Device values dropped because the device sent faster than its owner's plan allows (DESIGN §11)",
    registers,
  });
  const mqttInFlight = new Gauge({
    name: 'dds_mqtt_in_flight',
    help: 'MQTT device messages received and not yet handled',
    registers,
  });
  const mqttLag = new Histogram({
    name: 'dds_mqtt_lag_seconds',
    help: 'Time from a device message reaching the bridge to the end of its handling',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  let queueLag: () => number = () => 0;
  new Gauge({
    name: 'dds_mqtt_queue_lag_seconds',
    help: "Age of the oldest probe this node sent through its own broker sessions and has not received back: how long a device value waits in the broker's queue for this node",
    registers,
    collect() {
      this.set(queueLag());
    },
  });
  const queueDrops = new Counter({
    name: 'dds_mqtt_queue_drops_total',
    help: "Probes the broker acknowledged and then dropped from this node's session queue (a later probe arrived first): the broker is dropping device values (max_queued_messages)",
    registers,
  });
  const twinCalls = new Counter({
    name: 'dds_twin_calls_total',
    help: 'Signals and Updates sent to device twins, by kind, name and outcome (sent or failed)',
    labelNames: ['kind', 'name', 'outcome'] as const,
    registers,
  });

  let outboxBacklog: () => number = () => 0;
  new Gauge({
    name: 'dds_outbox_pending',
    help: 'Outbox intents written and not yet carried out (Temporal or the broker behind, or an intent that keeps failing)',
    registers,
    collect() {
      this.set(outboxBacklog());
    },
  });

  return {
    registry,
    /** The Prometheus text exposition of every series. */
    render: (): Promise<string> => registry.metrics(),
    contentType: registry.contentType,
    http: {
      observe(method: string, route: string, status: number, seconds: number): void {
        httpDuration.observe({ method, route, status: String(status) }, seconds);
      },
    },
    ingest: {
      observe(door: IngestDoor, outcome: string, seconds: number): void {
        ingestValues.inc({ door, outcome });
        ingestDuration.observe({ door }, seconds);
      },
      /** One call that ingested many values (a bulk import): each counted by outcome, the call timed once. */
      observeMany(door: IngestDoor, outcomes: ReadonlyMap<string, number>, seconds: number): void {
        for (const [outcome, count] of outcomes) ingestValues.inc({ door, outcome }, count);
        ingestDuration.observe({ door }, seconds);
      },
    },
    mqtt: {
      handled: () => mqttMessages.inc(),
      dropped: () => mqttDropped.inc(),
      retried: () => mqttRetries.inc(),
      duplicate: () => mqttDuplicates.inc(),
      /** A value over its device's plan rate (also counted as dropped). */
      overRate: () => deviceValuesDropped.inc(),
      /** Call when a message arrives; call the returned function when it is handled. */
      received(): () => void {
        mqttInFlight.inc();
        const end = mqttLag.startTimer();
        return () => {
          mqttInFlight.dec();
          end();
        };
      },
      /** Where dds_mqtt_queue_lag_seconds reads the lag from (the bridge's queue probe). */
      queueLag(read: () => number): void {
        queueLag = read;
      },
      queueDrops: (n: number) => queueDrops.inc(n),
    },
    process: {
      /** An unhandled rejection or uncaught exception the node logged and survived (common/process-guards.ts). */
      fault: () => processFaults.inc(),
    },
    twin: {
      call(kind: TwinCallKind, name: string, outcome: 'sent' | 'failed'): void {
        twinCalls.inc({ kind, name, outcome });
      },
    },
    outbox: {
      /** Where dds_outbox_pending reads the backlog from (the node's relay). */
      backlog(read: () => number): void {
        outboxBacklog = read;
      },
    },
    /** A gauge read at scrape time (e.g. Socket.IO connections of this node). */
    gauge(name: string, help: string, read: () => number): void {
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

import { bundleWorkflowCode, type NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, createJobActivities, createRoomEmitter } from '../activities';
import type { Config } from '../common/config';
import type { Logger } from '../common/logger';
import type { MqttClient } from '../common/mqtt';
import type { Redis } from '../common/redis';
import { createJobIngest } from './job-ingest';
import { temporalLogger } from './temporal-logger';

export interface TwinWorkerOptions {
  config: Config;
  connection: NativeConnection;
  redis: Redis;
  mqtt: MqttClient;
  logger: Logger;
  /** Defaults to `TEMPORAL_TASK_QUEUE`. */
  taskQueue?: string;
  /** A prebuilt bundle (bundleWorkflowCode) instead of bundling workflows/ again: tests and bench reuse one. */
  workflowBundle?: WorkflowBundleOption;
}

/**
 * Twins kept in the worker's workflow cache (WORKER_MAX_CACHED_WORKFLOWS when unset). A cached twin
 * costs about 250 KB of RSS; an evicted one costs the worker nothing and comes back, replaying its
 * (bounded) history, on its next timer, watch result or message. So the worker's memory is bounded
 * by this, not by the number of twins (docs/operations.md, docs/benchmarks.md "twins").
 */
export const DEFAULT_CACHED_TWINS = 2000;

/**
 * The worker that runs the device twins, the jobs (workflows/job/) and their activities. Tuning comes from the
 * environment: WORKER_MAX_CACHED_WORKFLOWS (sticky cache size; DEFAULT_CACHED_TWINS when unset),
 * WORKER_MAX_CONCURRENT_ACTIVITIES, WORKER_MAX_CONCURRENT_WORKFLOW_TASKS; SHUTDOWN_GRACE_MS
 * bounds how long shutdown waits for running activities.
 */
export async function createTwinWorker(options: TwinWorkerOptions): Promise<Worker> {
  const { config, connection, redis, mqtt, logger } = options;
  const emit = createRoomEmitter(redis);
  const jobLogger = logger.child({ component: 'job-activities' });
  const jobActivities = createJobActivities({
    redis,
    mqtt,
    emit,
    logger: jobLogger,
    topicRoot: config.MQTT_TOPIC_ROOT,
    ingest: createJobIngest(config, redis, mqtt, jobLogger),
  });
  const activities = createActivities({
    redis,
    mqtt,
    emit,
    logger: logger.child({ component: 'twin-activities' }),
    topicRoot: config.MQTT_TOPIC_ROOT,
    smtpUrl: config.SMTP_URL,
    mailFrom: config.MAIL_FROM,
    pushWebhookUrl: config.PUSH_WEBHOOK_URL,
    emailDailyCap: config.EMAIL_DAILY_CAP_PER_ACCOUNT,
    notificationRetentionDays: config.NOTIFICATION_RETENTION_DAYS,
  });
  return Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: options.taskQueue ?? config.TEMPORAL_TASK_QUEUE,
    workflowBundle:
      options.workflowBundle ??
      (await bundleWorkflowCode({
        workflowsPath: require.resolve('../workflows'),
        logger: temporalLogger(logger.child({ component: 'workflow-bundler' }), true),
      })),
    activities: { ...activities, ...jobActivities },
    maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS ?? DEFAULT_CACHED_TWINS,
    maxConcurrentActivityTaskExecutions: config.WORKER_MAX_CONCURRENT_ACTIVITIES,
    maxConcurrentWorkflowTaskExecutions: config.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
    shutdownGraceTime: config.SHUTDOWN_GRACE_MS,
  });
}

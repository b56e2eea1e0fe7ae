import type { Config } from '../../common/config';
import type { NotificationRecord } from '../../common/contracts';
import type { Logger } from '../../common/logger';
import type { Stores } from '../../store';
import type { Ingest } from '../ingest/ingest';
import type { CarryOutNow } from '../outbox/carry-out-now';
import type { BrokerCredentials } from '../mqtt/broker-credentials';
import type { SocketRevocations } from '../realtime/revocations';
import type { TokenRotation } from '../devices/rotate-device-token';
import type { JobClient } from '../temporal/job-client';
import type { TwinClient } from '../temporal/twin-client';
import type { WidgetLocks } from '../devices/widget-locks';

/**
 * What the gateway hands its routers. Each router takes only the part it uses (`Pick<RouteDeps, ...>`),
 * so its signature says what it depends on.
 */
export interface RouteDeps {
  config: Config;
  logger: Logger;
  stores: Stores;
  twins: TwinClient;
  /** Starts and cancels jobs' workflows (docs/jobs.md). */
  jobRuns: JobClient;
  ingest: Ingest;
  broker: BrokerCredentials;
  /** Takes rooms and sessions away from open Socket.IO connections on every node. */
  revocations: SocketRevocations;
  /** Hands a notification to Temporal for storage and channel delivery (gateway/temporal/notifier.ts). */
  notify: (record: NotificationRecord) => Promise<void>;
  /** Carries out the outbox intents a store step just wrote (what fails stays for the relay). */
  carryOutNow: CarryOutNow;
  /** Changes devices' `dt_` tokens, rolled forward through the outbox when the broker does not confirm. */
  tokens: TokenRotation;
  /** KEYPAD widgets' pin locks, put right through the outbox when a change does not finish. */
  widgetLocks: WidgetLocks;
}

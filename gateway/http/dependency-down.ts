import { DependencyUnavailableError, type Dependency } from '../../common/errors';
import { DynsecUnavailableError } from '../mqtt/dynsec-client';
import { isTemporalDown } from '../temporal/temporal-down';

/**
 * The dependency an error says is down, told by the error's type (never its message), or null.
 * The clients throw DependencyUnavailableError themselves (every Redis command through
 * common/redis.ts, gateway/temporal/twin-client.ts, gateway/temporal/notifier.ts); Temporal's gRPC errors and the
 * dynsec client's are recognised here too, for any call that reaches the middleware without
 * passing through them.
 */
export function dependencyDown(err: unknown): Dependency | null {
  if (err instanceof DependencyUnavailableError) return err.dependency;
  if (isTemporalDown(err)) return 'temporal';
  if (err instanceof DynsecUnavailableError) return 'mqtt';
  return null;
}

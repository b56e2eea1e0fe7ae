import { status as GrpcStatus } from '@grpc/grpc-js';
import { isGrpcServiceError, ServiceError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';

/** gRPC statuses that mean the Temporal server could not be reached or did not answer in time. */
const UNREACHABLE = new Set<number>([GrpcStatus.UNAVAILABLE, GrpcStatus.DEADLINE_EXCEEDED]);

/**
 * True when a Temporal client call failed because the server is down or did not answer before
 * the call's deadline: told by the error's type and gRPC status, never its message.
 */
export function isTemporalDown(err: unknown): boolean {
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  const grpc = err instanceof ServiceError ? err.cause : err;
  return isGrpcServiceError(grpc) && UNREACHABLE.has(grpc.code);
}

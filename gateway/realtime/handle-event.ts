import { z } from 'zod';
import type { Ack, ClientToServerEvents } from '../../common/contracts';
import type { ErrorCode } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { toAppError } from '../http/error-handler';
import type { DdsSocket } from './socket-types';

type AckFn = (result: unknown) => void;

/** A client decides what it sends where the ack goes: only a function is ever called. */
const ackFn = z.custom<AckFn>((value) => typeof value === 'function');

/** An event's arguments as Socket.IO hands them over: the payload first, the ack (when asked for) last. */
const eventArgs = z.array(z.unknown()).transform((args) => {
  const last = args.at(-1);
  const ack = ackFn.safeParse(last);
  const payload = ack.success && args.length === 1 ? undefined : args[0];
  return { payload, ack: ack.success ? ack.data : null };
});

/**
 * Registers one client event of a socket so that nothing a client sends reaches the process:
 * the arguments are parsed (any payload shape, an ack that is not a function or none at all),
 * `handle` validates its payload, and every error it throws becomes `{success: false, error}`.
 * That goes to the ack; without an ack (or for the codes in `alsoAsErrorEvent`) the socket gets
 * an `error` event `{code, message}` instead (as well).
 */
export function handleEvent(socket: DdsSocket, logger: Logger) {
  return <T extends object>(
    event: keyof ClientToServerEvents,
    handle: (payload: unknown) => Promise<T>,
    alsoAsErrorEvent: ErrorCode[] = [],
  ): void => {
    async function run(args: unknown[]): Promise<void> {
      const { payload, ack } = eventArgs.parse(args);
      let answer: Ack<T>;
      try {
        answer = { success: true, ...(await handle(payload)) };
      } catch (err) {
        const e = toAppError(err);
        if (e.status >= 500) logger.error({ err, event }, 'socket event failed');
        answer = { success: false, error: { code: e.code, message: e.message } };
        if (!ack || alsoAsErrorEvent.includes(e.code)) socket.emit('error', answer.error);
      }
      ack?.(answer);
    }

    socket.on(event, (...args: unknown[]) => {
      run(args).catch((err: unknown) => logger.error({ err, event }, 'socket event handler failed'));
    });
  };
}

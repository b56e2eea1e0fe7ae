import { parsePin, PIN_VALUE_LIMIT_BYTES } from '../../common/pins';
import type { DeviceTopic } from '../../common/mqtt-topics';

/**
 * The largest payload each kind of device message may have, in bytes, checked before a payload is
 * decoded (DESIGN §11): a pin's value limit (V 1024, D and A 16), `online`/`offline`, a JSON of the
 * three info fields (64 characters each, up to 4 bytes a character), a command id, an OTA status
 * report (a job id, a state, a progress and an error of up to 200 characters).
 */
const MESSAGE_LIMIT_BYTES = { status: 16, info: 1024, ack: 64, 'ota-status': 1024 } as const;

/** Whether a device message's payload is within its limit; a pin that is not one passes (ingest answers INVALID_PIN). */
export function payloadFits(topic: DeviceTopic, payload: Buffer | string): boolean {
  const bytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  if (topic.kind !== 'pin') return bytes <= MESSAGE_LIMIT_BYTES[topic.kind];
  const pin = parsePin(topic.pin);
  return pin === null || bytes <= PIN_VALUE_LIMIT_BYTES[pin.type];
}

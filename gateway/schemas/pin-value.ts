import { z } from 'zod';

/** A UTF-16 surrogate with no partner: text no UTF-8 byte sequence can hold. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * A pin value as every door that takes JS strings accepts it (JSON bodies, query strings,
 * Socket.IO; docs/limits.md "Pin values"): well-formed Unicode. A lone surrogate (`"\ud800"`) has no
 * UTF-8 form: Redis's JSON decoder refused it (a 500) or it was stored as U+FFFD; it is a 400
 * instead. MQTT values arrive as bytes and are decoded, so they never hold one.
 */
export const pinValueText = z.string().refine((value) => !LONE_SURROGATE.test(value), 'not well-formed Unicode (a lone UTF-16 surrogate)');

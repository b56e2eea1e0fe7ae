import { z } from 'zod';
import { parsePin } from '../../common/pins';

/**
 * The pin of a management data path: a bare number 0–255 meaning that V pin (SPEC §4.3, DESIGN §5),
 * or a pin name (`V5`, `D0`, `A15`, SPEC §2.7 ranges), so D and A pins have history too: `name` is
 * the canonical name, `shown` how the answer names it (the number for a number, else the name).
 */
export const dataPinParams = z.object({
  pin: z.string().transform((text, ctx): { name: string; shown: number | string } => {
    const bare = /^\d{1,3}$/.test(text);
    const pin = parsePin(text);
    if (!pin || (bare && pin.index > 255)) {
      ctx.addIssue({ code: 'custom', message: 'a number 0 to 255 (a V pin), or a pin name V0–V255, D0–D99, A0–A15' });
      return z.NEVER;
    }
    return { name: pin.name, shown: bare ? pin.index : pin.name };
  }),
});

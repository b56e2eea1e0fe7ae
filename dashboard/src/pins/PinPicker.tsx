import { useId } from 'react';
import { PIN_TYPES, pinTypeHelp, pinTypeInfo, type PinType } from './pin-types';

/** A pin as the picker edits it: its type and the number typed so far (may be empty or out of range). */
export interface PinDraft {
  type: PinType;
  number: string;
}

export const pinDraftOf = (name: string): PinDraft => {
  const type = PIN_TYPES.find((t) => t.type === name.charAt(0).toUpperCase())?.type ?? 'V';
  return { type, number: name.replace(/^[VDA]/i, '') };
};

export const draftName = (draft: PinDraft): string => `${draft.type}${draft.number}`;

/**
 * A pin picker: the type (V, D, A) and its number, bounded by the type's range (SPEC §2.7), with a
 * line saying what the type is for and how large a value may be.
 */
export function PinPicker(props: { label: string; value: PinDraft; onChange: (draft: PinDraft) => void; disabled?: boolean }) {
  const { value, onChange } = props;
  const help = useId();
  const max = pinTypeInfo(value.type).max;
  return (
    <fieldset className="pin-picker" disabled={props.disabled}>
      <legend>{props.label}</legend>
      <div className="row tight">
        <select aria-label="Pin type" value={value.type} onChange={(e) => onChange({ ...value, type: e.target.value as PinType })}>
          {PIN_TYPES.map((t) => (
            <option key={t.type} value={t.type}>
              {t.type} · {t.name}
            </option>
          ))}
        </select>
        <input
          aria-label={props.label}
          aria-describedby={help}
          type="number"
          inputMode="numeric"
          min={0}
          max={max}
          step={1}
          required
          value={value.number}
          onChange={(e) => onChange({ ...value, number: e.target.value })}
        />
      </div>
      <small id={help} className="help">
        {pinTypeHelp(value.type)}
      </small>
    </fieldset>
  );
}

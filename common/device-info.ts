/**
 * The device info fields (DESIGN §6 `{root}/{deviceId}/info`) and their limit: the one rule the
 * MQTT bridge's schema and the twin both apply. No Node imports: the workflow bundle imports it.
 */
export const INFO_FIELDS = ['ipAddress', 'firmwareVersion', 'hardwareType'] as const;
export type InfoField = (typeof INFO_FIELDS)[number];
export type DeviceInfoFields = Partial<Record<InfoField, string>>;

/** Longest value of an info field, in characters. */
export const INFO_FIELD_MAX_LENGTH = 64;

/** The field's value when it is an acceptable one, else null (left as it was). */
export function infoFieldValue(value: unknown): string | null {
  return typeof value === 'string' && value.length <= INFO_FIELD_MAX_LENGTH ? value : null;
}

#!/bin/sh
# Creates the dynamic security plugin's JSON with its admin account, once, before the broker starts.
set -eu
file=/mosquitto/data/dynamic-security.json
if [ -f "$file" ]; then
  echo "dynsec: $file exists"
else
  mosquitto_ctrl dynsec init "$file" "$MQTT_DYNSEC_USERNAME" "$MQTT_DYNSEC_PASSWORD"
fi
chown mosquitto:mosquitto "$file"
chmod 600 "$file"

#!/bin/sh
# Gives the service its broker account (role `service`: publish and subscribe to every topic,
# shared subscriptions included). Safe to run again: existing entries are kept and the password
# is set to MQTT_PASSWORD each time.
set -eu
host="${MQTT_HOST:-mosquitto}"
port="${MQTT_PORT:-1883}"

ctrl() {
  mosquitto_ctrl -h "$host" -p "$port" -u "$MQTT_DYNSEC_USERNAME" -P "$MQTT_DYNSEC_PASSWORD" dynsec "$@"
}

ctrl createRole service || true
for acltype in publishClientSend publishClientReceive subscribePattern unsubscribePattern; do
  ctrl addRoleACL service "$acltype" '#' allow || true
done
ctrl createClient "$MQTT_USERNAME" -p "$MQTT_PASSWORD" || true
ctrl setClientPassword "$MQTT_USERNAME" "$MQTT_PASSWORD"
ctrl addClientRole "$MQTT_USERNAME" service || true

mosquitto_pub -h "$host" -p "$port" -u "$MQTT_USERNAME" -P "$MQTT_PASSWORD" \
  -t "${MQTT_TOPIC_ROOT:-dds}/provisioning-check" -m ok
echo "provision: broker account $MQTT_USERNAME is ready"

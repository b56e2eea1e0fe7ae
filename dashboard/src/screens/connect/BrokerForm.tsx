import { useState, type FormEvent } from 'react';
import { isBrokerUrl, TOPIC_ROOT_PATTERN, type BrokerSettings } from './broker-settings';

/** Sets this browser's broker URL and topic root (what `npm start` wrote to data/endpoints.json, or the deployment's). */
export function BrokerForm({
  settings,
  onSave,
  onCancel,
}: {
  settings: BrokerSettings;
  onSave: (next: { mqttUrl: string; topicRoot: string } | null) => void;
  onCancel: () => void;
}) {
  const [mqttUrl, setUrl] = useState(settings.mqttUrl);
  const [topicRoot, setRoot] = useState(settings.topicRoot);
  const urlOk = isBrokerUrl(mqttUrl);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (urlOk) onSave({ mqttUrl: mqttUrl.trim(), topicRoot: topicRoot.trim() });
  };
  return (
    <form className="form" onSubmit={submit} aria-label="Broker settings">
      <div className="field">
        <label>
          Broker URL
          <input
            required
            value={mqttUrl}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="mqtt://broker.example.com:1883"
            aria-invalid={!urlOk}
            aria-describedby="broker-url-help"
          />
        </label>
        <small className="help" id="broker-url-help">
          mqtt://, mqtts://, ws:// or wss:// with the host and port devices reach (the service's MQTT_URL, or mqttUrl in data/endpoints.json
          of npm start).
        </small>
      </div>
      <div className="field">
        <label>
          Topic root
          <input
            required
            pattern={TOPIC_ROOT_PATTERN.source}
            value={topicRoot}
            onChange={(e) => setRoot(e.target.value)}
            aria-describedby="topic-root-help"
          />
        </label>
        <small className="help" id="topic-root-help">
          The service's MQTT_TOPIC_ROOT (default dds): a device publishes on root/device id/pin/V0.
        </small>
      </div>
      <div className="row">
        <button type="submit" className="primary" disabled={!urlOk}>
          Save broker
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        {settings.source === 'set' && (
          <button type="button" onClick={() => onSave(null)}>
            Forget
          </button>
        )}
      </div>
    </form>
  );
}

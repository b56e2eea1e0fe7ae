import { useState } from 'react';
import { useSession } from '../../session';
import { Card, CopyButton } from '../../ui/common';
import { useBrokerSettings } from './broker-settings';
import { BrokerForm } from './BrokerForm';
import { publishCommand, simulatorCommand, subscribeCommand, type ConnectTarget } from './commands';

function Command({ title, text, testId }: { title: string; text: string; testId: string }) {
  return (
    <div className="command">
      <div className="command-head">
        <span>{title}</span>
        <CopyButton text={text} />
      </div>
      <pre className="snippet" data-testid={testId}>
        {text}
      </pre>
    </div>
  );
}

/**
 * How to connect a device: its broker address and topic root, and copyable commands that publish
 * a value as the device, print the commands sent to it, and run the simulator as it.
 */
export function ConnectPanel({ device, token }: { device: { id: string; name: string; projectId: string }; token: string | null }) {
  const { session } = useSession();
  const [settings, save] = useBrokerSettings();
  const [editing, setEditing] = useState(false);
  const target: ConnectTarget = { mqttUrl: settings.mqttUrl, topicRoot: settings.topicRoot, deviceId: device.id, token };
  const publish = publishCommand(target, 'V0', '42');
  const subscribe = subscribeCommand(target);
  const simulate = simulatorCommand({
    url: location.origin,
    mqttUrl: settings.mqttUrl,
    topicRoot: settings.topicRoot,
    email: session?.user.email ?? '<your email>',
    projectId: device.projectId,
    deviceName: device.name,
  });

  return (
    <Card
      title="Connect"
      actions={
        !editing && (
          <button type="button" className="small" onClick={() => setEditing(true)}>
            Change broker
          </button>
        )
      }
    >
      {editing ? (
        <BrokerForm settings={settings} onSave={(next) => (save(next), setEditing(false))} onCancel={() => setEditing(false)} />
      ) : (
        <dl className="facts" data-testid="broker">
          <dt>Broker</dt>
          <dd>
            <code data-testid="broker-url">{settings.mqttUrl}</code>
            {settings.source === 'guess' && <span className="muted"> · a guess: set the real address with Change broker</span>}
          </dd>
          <dt>Topic root</dt>
          <dd>
            <code data-testid="topic-root">{settings.topicRoot}</code>
          </dd>
          <dt>Username</dt>
          <dd>
            <code>{device.id}</code> (the device id)
          </dd>
          <dt>Password</dt>
          <dd>
            {token ? (
              <code>{token}</code>
            ) : (
              <span className="muted">its dt_ token, shown once at create; Regenerate token shows a new one</span>
            )}
          </dd>
        </dl>
      )}
      {publish && subscribe ? (
        <>
          <Command title="Send 42 on V0 as the device" text={publish} testId="publish-command" />
          <Command title="Print the commands sent to the device" text={subscribe} testId="subscribe-command" />
        </>
      ) : (
        <p className="muted">mosquitto_pub speaks MQTT over TCP: set an mqtt:// or mqtts:// broker address to get its commands.</p>
      )}
      <Command title="Simulate this device (npm run simulate; regenerates its token)" text={simulate} testId="simulate-command" />
    </Card>
  );
}

import { api } from '../../api/client';
import { useSession } from '../../session';
import { Card, CopyButton, ErrorLine, useLoad } from '../../ui/common';
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
 * How to connect a device: the broker address and topic root the service gives (GET /broker:
 * PUBLIC_MQTT_URL, else MQTT_URL), and copyable commands that publish a value as the device,
 * print the commands sent to it, and run the simulator as it.
 */
export function ConnectPanel({ device, token }: { device: { id: string; name: string; projectId: string }; token: string | null }) {
  const { session } = useSession();
  const broker = useLoad(() => api.broker(), []);
  const b = broker.data;
  const target: ConnectTarget | null = b ? { mqttUrl: b.mqttUrl, topicRoot: b.topicRoot, deviceId: device.id, token } : null;
  const publish = target && publishCommand(target, 'V0', '42');
  const subscribe = target && subscribeCommand(target);

  return (
    <Card title="Connect">
      <ErrorLine error={broker.error} />
      {b && (
        <dl className="facts" data-testid="broker">
          <dt>Broker</dt>
          <dd>
            <code data-testid="broker-url">{b.mqttUrl}</code>
          </dd>
          <dt>Topic root</dt>
          <dd>
            <code data-testid="topic-root">{b.topicRoot}</code>
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
      {publish && subscribe && (
        <>
          <Command title="Send 42 on V0 as the device" text={publish} testId="publish-command" />
          <Command title="Print the commands sent to the device" text={subscribe} testId="subscribe-command" />
        </>
      )}
      {b && !publish && <p className="muted">mosquitto_pub speaks MQTT over TCP; this broker is reached over WebSocket ({b.mqttUrl}).</p>}
      {b && (
        <Command
          title="Simulate this device (npm run simulate; regenerates its token)"
          text={simulatorCommand({
            url: location.origin,
            mqttUrl: b.mqttUrl,
            topicRoot: b.topicRoot,
            email: session?.user.email ?? '<your email>',
            projectId: device.projectId,
            deviceName: device.name,
          })}
          testId="simulate-command"
        />
      )}
    </Card>
  );
}

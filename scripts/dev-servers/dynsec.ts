import type { MqttClient } from 'mqtt';

const CONTROL_TOPIC = '$CONTROL/dynamic-security/v1';

export type DynsecCommand = { command: string } & Record<string, unknown>;

interface DynsecResponse {
  command: string;
  error?: string;
}

/** Sends commands to the dynamic security plugin as its admin; rejects naming each command that failed. */
export async function sendDynsecCommands(admin: MqttClient, commands: DynsecCommand[]): Promise<void> {
  const responseTopic = `${CONTROL_TOPIC}/response`;
  const reply = new Promise<DynsecResponse[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer from the dynamic security plugin')), 5000);
    admin.once('message', (topic, payload) => {
      clearTimeout(timer);
      if (topic !== responseTopic) reject(new Error(`unexpected message on ${topic}`));
      else resolve((JSON.parse(payload.toString()) as { responses: DynsecResponse[] }).responses);
    });
  });
  await admin.subscribeAsync(responseTopic, { qos: 1 });
  await admin.publishAsync(CONTROL_TOPIC, JSON.stringify({ commands }), { qos: 1 });
  const failed = (await reply).filter((r) => r.error);
  await admin.unsubscribeAsync(responseTopic);
  if (failed.length > 0) throw new Error(`dynsec: ${failed.map((r) => `${r.command}: ${r.error}`).join('; ')}`);
}

/**
 * A role that may publish and subscribe to every topic, and a client in it. Mosquitto checks a
 * shared subscription `$share/g/t` against the ACLs as `t`, so `#` covers those too.
 */
export function serviceAccountCommands(role: string, username: string, password: string): DynsecCommand[] {
  const acl = (acltype: string, topic: string) => ({ acltype, topic, allow: true });
  return [
    {
      command: 'createRole',
      rolename: role,
      acls: [acl('publishClientSend', '#'), acl('publishClientReceive', '#'), acl('subscribePattern', '#'), acl('unsubscribePattern', '#')],
    },
    { command: 'createClient', username, password, roles: [{ rolename: role }] },
  ];
}

import { Connection } from '@temporalio/client';
import { Redis } from 'ioredis';
import { connectAsync } from 'mqtt';
import { Client } from 'pg';
import { testConfig } from './config';

describe('test servers from the global setup', () => {
  const config = testConfig();

  it('Redis answers PING', async () => {
    const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 0 });
    try {
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }
  });

  it('the service user receives its own message through a shared subscription', async () => {
    const client = await connectAsync(config.MQTT_URL, { username: config.MQTT_USERNAME, password: config.MQTT_PASSWORD });
    try {
      const received = new Promise<string>((resolve) => client.once('message', (topic, payload) => resolve(`${topic}=${payload}`)));
      const root = `harness-${process.pid}`;
      const [grant] = await client.subscribeAsync(`$share/g/${root}/#`, { qos: 1 });
      expect(grant?.qos).toBe(1);
      await client.publishAsync(`${root}/pin/V1`, '42', { qos: 1 });
      expect(await received).toBe(`${root}/pin/V1=42`);
    } finally {
      await client.endAsync();
    }
  });

  it('refuses an anonymous client', async () => {
    await expect(connectAsync(config.MQTT_URL, { reconnectPeriod: 0 }, false)).rejects.toThrow(/Not authorized|Bad User Name or Password/i);
  });

  it('Temporal answers on TEMPORAL_ADDRESS', async () => {
    const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
    try {
      const info = await connection.workflowService.getSystemInfo({});
      expect(info.serverVersion).toBeTruthy();
    } finally {
      await connection.close();
    }
  });

  it('PostgreSQL answers on DATABASE_URL, on 127.0.0.1 and not on 5432', async () => {
    const url = new URL(config.DATABASE_URL ?? '');
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.port).not.toBe('5432');
    const client = new Client({ connectionString: config.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ answer: number }>('SELECT 6 * 7 AS answer');
      expect(rows[0]?.answer).toBe(42);
    } finally {
      await client.end();
    }
  });
});

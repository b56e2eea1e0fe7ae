/**
 * `npm run simulate` joins what exists (issue 37): a project by id or by name, and devices by name
 * (taking over their token), instead of always making its own "Simulator" project.
 */
import { OptionsError, readOptions } from '../../scripts/simulate/options';
import { simulate } from '../../scripts/simulate/simulate';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

let stack: Stack;
let user: TestUser;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  stack = await startStack();
  user = await registerUser(stack.request, 'Sam Simulator');
  env = {
    DDS_URL: stack.baseUrl,
    DDS_MQTT_URL: stack.config.MQTT_URL,
    MQTT_TOPIC_ROOT: stack.config.MQTT_TOPIC_ROOT,
    DDS_EMAIL: user.email,
    DDS_PASSWORD: 'correct horse battery',
  };
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

const projectNames = async () =>
  ((await stack.request('GET', '/api/v1/projects', { token: user.token })).body.data.projects as Array<{ name: string }>)
    .map((p) => p.name)
    .sort();

it('joins a project by id and its device by name, makes a named device that is missing, and creates no project', async () => {
  const project = await createProject(stack.request, user, 'Greenhouse');
  const existing = await createDevice(stack.request, user, project.id, 'Climate sensor');
  const options = readOptions(
    ['--project', project.id, '--device-name', 'Climate sensor', '--device-name', 'Soil probe', '--rate', '5', '--duration', '3'],
    env,
  );
  const started: string[] = [];
  const report = await simulate(options, { onStart: (line) => started.push(line) });

  expect(report.projectId).toBe(project.id);
  expect(report.deviceIds).toHaveLength(2);
  expect(report.deviceIds[0]).toBe(existing.id);
  expect(started).toEqual([`Joined project Greenhouse (${project.id}): 1 device made, 1 joined with a new token (Climate sensor)`]);
  expect(await projectNames()).toEqual(['Greenhouse']);
  const devices = (await stack.request('GET', `/api/v1/devices?projectId=${project.id}`, { token: user.token })).body.data
    .devices as Array<{ name: string }>;
  expect(devices.map((d) => d.name).sort()).toEqual(['Climate sensor', 'Soil probe']);
  await eventually(async () =>
    expect((await stack.request('GET', `/api/v1/data/${existing.id}/0/latest`, { token: user.token })).status).toBe(200),
  );
}, 60_000);

it('joins a project by name', async () => {
  const report = await simulate(readOptions(['--project', 'Greenhouse', '--device-name', 'Soil probe', '--duration', '0.5'], env));
  const greenhouse = (
    (await stack.request('GET', '/api/v1/projects', { token: user.token })).body.data.projects as Array<{ id: string; name: string }>
  ).find((p) => p.name === 'Greenhouse');
  expect(report.projectId).toBe(greenhouse?.id);
  expect(await projectNames()).toEqual(['Greenhouse']);
}, 60_000);

it('refuses a project id the account does not have, and --devices with --device-name', async () => {
  const unknown = '00000000-0000-4000-8000-000000000000';
  await expect(simulate(readOptions(['--project', unknown, '--duration', '0.5'], env))).rejects.toThrow(
    `No project with id ${unknown} in this account`,
  );
  expect(() => readOptions(['--devices', '2', '--device-name', 'a'], env)).toThrow(OptionsError);
  expect(await projectNames()).toEqual(['Greenhouse']);
});

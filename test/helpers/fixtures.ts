import { randomUUID } from 'node:crypto';
import type { Request } from './http';

export interface TestUser {
  id: string;
  email: string;
  token: string;
}

export async function registerUser(request: Request, name = 'Test User'): Promise<TestUser> {
  const email = `user-${randomUUID()}@example.com`;
  const res = await request('POST', '/api/v1/auth/register', { body: { email, password: 'correct horse battery', name } });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
  return { id: res.body.data.user.id, email, token: res.body.data.accessToken };
}

export async function createProject(request: Request, user: TestUser, name = 'Greenhouse'): Promise<{ id: string }> {
  const res = await request('POST', '/api/v1/projects', { token: user.token, body: { name, description: 'test project' } });
  if (res.status !== 201) throw new Error(`create project failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function createDevice(
  request: Request,
  user: TestUser,
  projectId: string,
  name = 'Sensor',
): Promise<{ id: string; token: string }> {
  const res = await request('POST', '/api/v1/devices', { token: user.token, body: { name, projectId, description: 'test device' } });
  if (res.status !== 201) throw new Error(`create device failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function addMember(request: Request, owner: TestUser, projectId: string, member: TestUser, role: string): Promise<void> {
  const res = await request('POST', `/api/v1/projects/${projectId}/members`, { token: owner.token, body: { email: member.email, role } });
  if (res.status !== 201) throw new Error(`add member failed: ${res.status} ${res.text}`);
}

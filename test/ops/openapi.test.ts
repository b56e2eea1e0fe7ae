import { listRoutes } from '../../gateway/http/route-table';
import { openApiPath } from '../../gateway/openapi/document';
import { startStack, type Stack } from '../helpers/stack';

let stack: Stack;
let document: {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown>; security: unknown[] }>>;
  components: { securitySchemes: Record<string, unknown> };
};

beforeAll(async () => {
  stack = await startStack();
  const res = await stack.request('GET', '/openapi.json');
  expect(res.status).toBe(200);
  document = res.body;
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

const served = () =>
  listRoutes(stack.composed.gateway.app)
    .map((r) => `${r.method} ${openApiPath(r.template)}`)
    .sort();
const documented = () =>
  Object.entries(document.paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1 with the bearer, X-API-Key and ?token= security schemes', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer' },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      deviceToken: { type: 'apiKey', in: 'query', name: 'token' },
    });
  });

  it('resolves every $ref inside the document', () => {
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map(([, ref]) => ref as string);
    expect(refs.length).toBeGreaterThan(0);
    const resolve = (ref: string): unknown =>
      ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
    expect(refs.filter((ref) => resolve(ref) === undefined)).toEqual([]);
  });

  it('documents every route Express serves, and nothing Express does not serve', () => {
    const routes = served();
    expect(routes.length).toBeGreaterThan(60);
    expect(documented().filter((op) => !routes.includes(op))).toEqual([]);
    expect(routes.filter((op) => !documented().includes(op))).toEqual([]);
  });

  it('gives each operation the error envelope with its codes, and the interface security', () => {
    const op = document.paths['/external/api/v1/devices/{deviceId}/pins/{pin}']?.put;
    expect(op?.security).toEqual([{ apiKeyHeader: [] }]);
    expect(JSON.stringify(op?.responses['401'])).toContain('INVALID_API_KEY');
    expect(JSON.stringify(op?.responses['403'])).toContain('PIN_LOCKED');
    expect(JSON.stringify(op?.responses['400'])).toContain('VALUE_TOO_LARGE');
    const simple = document.paths['/external/api/update']?.get;
    expect(simple?.security).toEqual([{ deviceToken: [] }]);
    expect(JSON.stringify(simple?.responses['403'])).toContain('SIMPLE_API_DISABLED');
  });

  it('documents 429 RATE_LIMIT_EXCEEDED with Retry-After on every management operation with a user, and on register and login', () => {
    const limited = Object.entries(document.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(
          ([, op]) =>
            JSON.stringify(op.security) === JSON.stringify([{ bearerAuth: [] }]) ||
            ['/api/v1/auth/register', '/api/v1/auth/login'].includes(path),
        )
        .map(([method, op]) => ({
          operation: `${method} ${path}`,
          answer: op.responses['429'] as { headers?: Record<string, unknown>; description?: string } | undefined,
        })),
    );
    expect(limited.length).toBeGreaterThan(40);
    for (const { operation, answer } of limited) {
      expect({ operation, description: answer?.description, retryAfter: Boolean(answer?.headers?.['Retry-After']) }).toEqual({
        operation,
        description: 'RATE_LIMIT_EXCEEDED',
        retryAfter: true,
      });
    }
  });

  it('describes request bodies with the schemas the routes validate with', () => {
    const register = document.paths['/api/v1/auth/register']?.post as unknown as {
      requestBody: {
        content: { 'application/json': { schema: { required: string[]; properties: Record<string, { minLength?: number }> } } };
      };
    };
    const schema = register.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(['email', 'password']);
    expect(schema.properties.password?.minLength).toBe(8);
  });
});

describe('GET /docs', () => {
  it('serves Swagger UI from node_modules, pointed at /openapi.json', async () => {
    const page = await stack.request('GET', '/docs/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('swagger-ui-bundle.js');
    const init = await stack.request('GET', '/docs/dds-init.js');
    expect(init.text).toContain('../openapi.json');
    const bundle = await fetch(`${stack.baseUrl}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    expect((await fetch(`${stack.baseUrl}/docs`, { redirect: 'manual' })).headers.get('location')).toBe('/docs/');
  });
});

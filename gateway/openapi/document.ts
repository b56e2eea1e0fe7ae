import { z } from 'zod';
import { ERRORS, type ErrorCode } from '../../common/errors';
import { QUOTA_RESOURCES } from '../../common/quotas';
import { OPERATIONS, type Operation, type Security } from './operations';

type JsonSchema = Record<string, unknown>;

/** Codes any operation of an interface can answer, before its own (SPEC §7, DESIGN §4). */
const BASE_ERRORS: Record<Security, ErrorCode[]> = {
  none: ['VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE', 'INTERNAL_ERROR'],
  // The management API's per-user rate limit (DESIGN §11) answers any bearer operation.
  bearer: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'RATE_LIMIT_EXCEEDED', 'PAYLOAD_TOO_LARGE', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'],
  admin: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'PAYLOAD_TOO_LARGE', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'],
  apiKey: [
    'VALIDATION_ERROR',
    'MISSING_API_KEY',
    'INVALID_API_KEY',
    'RATE_LIMIT_EXCEEDED',
    'PAYLOAD_TOO_LARGE',
    'INTERNAL_ERROR',
    'SERVICE_UNAVAILABLE',
  ],
  token: [
    'VALIDATION_ERROR',
    'MISSING_TOKEN',
    'INVALID_TOKEN',
    'SIMPLE_API_DISABLED',
    'RATE_LIMIT_EXCEEDED',
    'PAYLOAD_TOO_LARGE',
    'INTERNAL_ERROR',
    'SERVICE_UNAVAILABLE',
  ],
};

const SECURITY: Record<Security, Record<string, string[]>[]> = {
  none: [],
  bearer: [{ bearerAuth: [] }],
  admin: [{ adminToken: [] }],
  apiKey: [{ apiKeyHeader: [] }],
  token: [{ deviceToken: [] }],
};

const TAGS: [string, string][] = [
  ['/external/api/v1/', 'External REST (X-API-Key)'],
  ['/external/api/', 'Simple API (?token=)'],
  ['/api/v1/', 'Management (bearer)'],
  ['/', 'Service'],
];

/** Definitions zod emits for recursive parts (e.g. z.json()), collected for components.schemas. */
type Definitions = Record<string, JsonSchema>;

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), its `$defs` moved into `defs`. */
const toJson = (schema: z.ZodType, defs: Definitions): JsonSchema => {
  const { $schema: _dialect, $defs, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const local = Object.entries(($defs ?? {}) as Definitions);
  const renames = local.map(([name], i) => [`"#/$defs/${name}"`, `"#/components/schemas/Def${Object.keys(defs).length + i}"`] as const);
  const rename = (value: unknown): JsonSchema =>
    JSON.parse(renames.reduce((text, [from, to]) => text.replaceAll(from, to), JSON.stringify(value))) as JsonSchema;
  const base = Object.keys(defs).length;
  local.forEach(([, definition], i) => (defs[`Def${base + i}`] = rename(definition)));
  return rename(rest);
};

/** `/devices/:deviceId` → `/devices/{deviceId}`. */
export const openApiPath = (template: string): string => template.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function parameters(operation: Operation, defs: Definitions): JsonSchema[] {
  const path = [...operation.path.matchAll(/:([A-Za-z0-9_]+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: name === 'pin' ? { type: 'string' } : { type: 'string', format: 'uuid' },
  }));
  if (!operation.query) return path;
  const query = toJson(operation.query, defs) as { properties?: Record<string, JsonSchema>; required?: string[] };
  const fromQuery = Object.entries(query.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: query.required?.includes(name) ?? false,
    schema,
  }));
  return [...path, ...fromQuery];
}

/** Every 429 (a rate limit or a throttle, docs/limits.md) says when to try again. */
const RETRY_AFTER: JsonSchema = {
  description: 'Seconds until the window that refused the request ends',
  schema: { type: 'integer', minimum: 1 },
};

function responses(operation: Operation): Record<string, JsonSchema> {
  const ok = operation.ok ?? 200;
  const success: JsonSchema =
    ok === 204
      ? { description: 'Done; no body' }
      : {
          description: 'Success',
          content: {
            'application/json': {
              schema: operation.security === 'token' ? { type: 'object' } : { $ref: '#/components/schemas/Success' },
            },
          },
        };
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const code of [...BASE_ERRORS[operation.security], ...(operation.errors ?? [])]) {
    const status = ERRORS[code].status;
    byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  }
  const errors = [...byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, codes]): [string, JsonSchema] => [
      String(status),
      {
        description: [...codes].join(', '),
        ...(status === 429 ? { headers: { 'Retry-After': RETRY_AFTER } } : {}),
        content: {
          'application/json': {
            schema: {
              allOf: [
                { $ref: '#/components/schemas/Error' },
                { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: [...codes] } } } } },
              ],
            },
          },
        },
      },
    ]);
  return { [String(ok)]: success, ...Object.fromEntries(errors) };
}

function operationObject(operation: Operation, defs: Definitions): JsonSchema {
  const tag = TAGS.find(([prefix]) => operation.path.startsWith(prefix))?.[1] ?? 'Service';
  return {
    operationId: `${operation.method.toLowerCase()}${openApiPath(operation.path).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: operation.summary,
    tags: [tag],
    security: SECURITY[operation.security],
    parameters: parameters(operation, defs),
    ...(operation.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: toJson(operation.body, defs) } } } }
      : {}),
    responses: responses(operation),
  };
}

/** The OpenAPI 3.1 document of all three HTTP interfaces, from OPERATIONS and their zod schemas. */
export function buildOpenApiDocument(): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const defs: Definitions = {};
  for (const operation of OPERATIONS) {
    const path = (paths[openApiPath(operation.path)] ??= {});
    path[operation.method.toLowerCase()] = operationObject(operation, defs);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Device Data Service',
      version: '0.1.0',
      description:
        'Management API `/api/v1` (bearer), external REST `/external/api/v1` (X-API-Key) and the simple API `/external/api` (?token=). ' +
        'Errors use one envelope `{success: false, error: {code, message, details?}}`; each operation lists the codes it can answer.',
    },
    tags: TAGS.map(([, name]) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Access token from POST /api/v1/auth/login' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN of the service' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        deviceToken: { type: 'apiKey', in: 'query', name: 'token', description: "The device's simple API token" },
      },
      schemas: {
        ...defs,
        Success: { type: 'object', required: ['success'], properties: { success: { const: true }, data: {} } },
        Error: {
          type: 'object',
          required: ['success', 'error'],
          properties: {
            success: { const: false },
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { enum: Object.keys(ERRORS) },
                message: { type: 'string' },
                details: {
                  oneOf: [
                    { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, problem: { type: 'string' } } } },
                    {
                      type: 'object',
                      description: 'QUOTA_EXCEEDED: the quota (docs/limits.md "Quotas"), its limit and how much of it is used',
                      required: ['resource', 'limit', 'used'],
                      properties: { resource: { enum: [...QUOTA_RESOURCES] }, limit: { type: 'integer' }, used: { type: 'integer' } },
                    },
                  ],
                },
              },
            },
          },
        },
      },
    },
  };
}

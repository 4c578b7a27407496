import fc from 'fast-check';
import { HOOK_KINDS, type HookSecretKind } from '../../src/server/lib/hook-secrets.js';
import type { ApiClient } from '../support/client.js';
import { DARAJA_HOOK_ROUTES, listApiRoutes, routeKey } from '../support/routes.js';
import type { Expectation, RawRequest } from './fuzz-http.js';

/**
 * The fuzz suite's inputs: every /api route the server documents, with its path, query and body
 * schemas read from the OpenAPI document (so a new route, or a new field, is fuzzed without a
 * change here), and fast-check arbitraries of hostile requests for it.
 *
 * Two families of requests:
 * - refused: built so that no answer but a 4xx is right (a malformed or unknown id, a body that
 *   can never validate, a wrong content type, broken JSON, a cut-off form, an oversized body, a
 *   missing XSRF header, a file that lies about its type). They must change nothing.
 * - mixed: hostile but possibly valid (a field-aware body with odd values, another encoding,
 *   fc.anything()): any 2xx or 4xx is right, a 5xx or a hang never is.
 */

// ---------------------------------------------------------------------------------------------
// The routes, from the server's own OpenAPI document
// ---------------------------------------------------------------------------------------------

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

export interface ParamSpec {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface RouteSpec {
  method: string;
  /** As OpenAPI writes it: /api/products/{id} */
  path: string;
  key: string;
  pathParams: ParamSpec[];
  query: ParamSpec[];
  /** The JSON body's schema, when the route validates one. */
  body?: JsonSchema;
}

interface OpenApiOperation {
  parameters?: { in: string; name: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

/** Safaricom's callback: no session, no XSRF, a secret path token, and it acknowledges whatever it is sent. */
export const DARAJA_CALLBACK = 'POST /api/hooks/daraja/stk/{token}';
/** Lipa na M-Pesa (Paybill/Till) confirmation and validation: Daraja's calls too. */
export const C2B_HOOKS = new Set(['POST /api/hooks/daraja/c2b/{token}/confirm', 'POST /api/hooks/daraja/c2b/{token}/validate']);
/** Every call Daraja makes: each carries its kind's secret and acknowledges whatever it is sent. */
export function isDarajaHook(key: string): boolean {
  return DARAJA_HOOK_ROUTES.includes(key);
}
/** Which secret a Daraja hook's path carries: its kind, the segment after /daraja/. */
function hookKindOf(key: string): HookSecretKind {
  const kind = HOOK_KINDS.find((k) => key.includes(`/api/hooks/daraja/${k}/`));
  if (!kind) throw new Error(`not a Daraja hook: ${key}`);
  return kind;
}
/** The one route that takes a file. */
export const UPLOAD_ROUTE = 'POST /api/uploads';
export const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export async function loadRouteSpecs(client: ApiClient): Promise<RouteSpec[]> {
  const routes = await listApiRoutes(client);
  const doc = await client.get<{ paths: Record<string, Record<string, OpenApiOperation>> }>('/api/docs/json');
  return routes.map((route) => {
    const operation = doc.body.paths[route.path]?.[route.method.toLowerCase()] ?? {};
    const params = (where: string) =>
      (operation.parameters ?? [])
        .filter((p) => p.in === where)
        .map((p) => ({ name: p.name, required: p.required === true, schema: p.schema ?? {} }));
    const content = operation.requestBody?.content ?? {};
    const body = (content['application/json'] ?? Object.values(content)[0])?.schema;
    return {
      method: route.method,
      path: route.path,
      key: routeKey(route),
      pathParams: params('path'),
      query: params('query'),
      ...(body && { body }),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// What a generated request is
// ---------------------------------------------------------------------------------------------

export type Who = 'admin' | 'shopper' | 'guest';

export type BodySpec =
  | { type: 'none' }
  | { type: 'text'; contentType: string; text: string }
  | { type: 'bytes'; contentType: string; bytes: Uint8Array }
  | { type: 'form'; fields: [string, string][] }
  | { type: 'file'; field: string; filename: string; fileType: string; bytes: Uint8Array; fields: [string, string][] };

export interface FuzzCase {
  /** Which kind of hostile input, for the report. */
  kind: string;
  who: Who;
  expect: Expectation;
  method: string;
  url: string;
  xsrf: boolean;
  body: BodySpec;
  /** Send only the first bytes of the body over a raw socket, then vanish. */
  vanish?: { contentType: string; bytes: Uint8Array; sendBytes: number };
}

export function toRawRequest(c: FuzzCase): RawRequest {
  const request: RawRequest = { method: c.method, url: c.url, xsrf: c.xsrf };
  const body = c.body;
  switch (body.type) {
    case 'none':
      break;
    case 'text':
      request.headers = { 'content-type': body.contentType };
      request.body = body.text;
      break;
    case 'bytes':
      request.headers = { 'content-type': body.contentType };
      request.body = new Blob([new Uint8Array(body.bytes)]);
      break;
    case 'form': {
      const form = new FormData();
      for (const [name, value] of body.fields) form.append(name, value);
      request.body = form;
      break;
    }
    case 'file': {
      const form = new FormData();
      for (const [name, value] of body.fields) form.append(name, value);
      form.append(body.field, new Blob([new Uint8Array(body.bytes)], { type: body.fileType }), body.filename);
      request.body = form;
      break;
    }
  }
  return request;
}

/** One line that says what was sent, enough to send it again by hand. */
export function describeCase(c: FuzzCase): string {
  const b = c.body;
  const shown =
    b.type === 'none'
      ? 'no body'
      : b.type === 'text'
        ? `[${b.contentType}] ${JSON.stringify(b.text.length > 160 ? `${b.text.slice(0, 160)}… (${b.text.length} chars)` : b.text)}`
        : b.type === 'bytes'
          ? `[${b.contentType}] ${b.bytes.length} bytes`
          : b.type === 'form'
            ? `[multipart] ${JSON.stringify(b.fields).slice(0, 160)}`
            : `[multipart file ${b.field}=${JSON.stringify(b.filename)} ${b.fileType}] ${b.bytes.length} bytes`;
  const url = c.url.length > 200 ? `${c.url.slice(0, 200)}…` : c.url;
  return `${c.kind} as ${c.who}${c.xsrf ? '' : ' without XSRF'}: ${c.method} ${url} ${shown}${c.vanish ? ` (vanishing after ${c.vanish.sendBytes} bytes)` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Hostile values
// ---------------------------------------------------------------------------------------------

const SQL_FRAGMENTS = [
  "' OR '1'='1",
  "' OR 1=1 --",
  "'; DROP TABLE users; --",
  '1; SELECT pg_sleep(10) --',
  "' UNION SELECT password_hash, email FROM users --",
  '" OR ""="',
  "admin'--",
  "%' OR '%'='",
  "') OR ('a'='a",
  '$1',
  "\\'; --",
  "'||(SELECT version())||'",
  "1' AND (SELECT count(*) FROM pg_class) > 0 --",
  "E'\\x00'",
];
const SCRIPT_FRAGMENTS = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '<svg/onload=alert(1)>',
  '{{constructor.constructor("alert(1)")()}}',
  '$' + '{7*7}', // a template-injection probe, spelt so it is not mistaken for one here
  '<!--',
  ']]>',
  '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
  '../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '/etc/passwd%00.png',
];
const ODD_TEXT = [
  '\u0000',
  'a\u0000b',
  '\u202eevil',
  '\u200b',
  '\ufeff',
  '\ud800',
  '\udfff',
  'a\ud800b',
  '😀',
  '👨‍👩‍👧‍👦',
  'Z\u0351\u0352\u0353\u0354',
  'İı',
  'ß',
  'ﬁ',
  '１２３',
  '١٢٣',
  '\r\n',
  '\r\nSet-Cookie: x=1',
  '\t',
  '\u2028\u2029',
  '\u0085',
  '\u00a0',
  '%00',
  '%',
  '%zz',
  '\\u0000',
  'null',
  'undefined',
  'NaN',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  '{"$gt":""}',
  '%s%s%n',
  ' ',
  '',
];
const FRAGMENTS = [...SQL_FRAGMENTS, ...SCRIPT_FRAGMENTS, ...ODD_TEXT];
const EDGE_LENGTHS = [2, 99, 100, 101, 128, 129, 200, 201, 254, 255, 500, 501, 2000, 2001, 5000, 5001, 20_000];

const fragment = fc.constantFrom(...FRAGMENTS);

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fragment },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.string({ minLength: 1, maxLength: 10 }),
        fc.constantFrom('\u0000', '\ud800', '\udc00', '\u202e', '\ufffe'),
        fc.string({ maxLength: 10 }),
      )
      .map(([a, b, c]) => a + b + c),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.string({ maxLength: 10 }), fragment, fc.string({ maxLength: 10 })).map(([a, b, c]) => a + b + c),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...EDGE_LENGTHS), fc.constantFrom('x', ' ', 'é', '😀', '\u0000', '<', "'"))
      .map(([n, c]) => c.repeat(n)),
  },
);

const EDGE_NUMBERS = [
  -1,
  -0,
  0,
  0.001,
  0.005,
  0.01,
  0.1,
  0.5,
  1.005,
  1.5,
  2.675,
  99.999,
  100,
  1000,
  1001,
  5000.005,
  1e6,
  1e6 + 1,
  1e7,
  1e7 + 0.01,
  1e8,
  1e8 + 0.01,
  21_474_836.47,
  21_474_836.48,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 53,
  2 ** 53 + 2,
  1e21,
  1e300,
  -1e300,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_VALUE,
  Number.EPSILON,
];

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_NUMBERS) },
  { weight: 2, arbitrary: fc.integer({ min: -(2 ** 31), max: 2 ** 31 }) },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);

const NUMERIC_TEXT = [
  '1e6',
  '0x10',
  '0b11',
  '0o7',
  ' 12 ',
  '12abc',
  'Infinity',
  '-Infinity',
  'NaN',
  '',
  ' ',
  '١٢',
  '１２',
  '1_000',
  '1,5',
  '+5',
  '.5',
  '5.',
  '--1',
  '9'.repeat(400),
];
const numericString: fc.Arbitrary<string> = fc.oneof(hostileNumber.map(String), fc.constantFrom(...NUMERIC_TEXT));

/**
 * JSON texts JSON.stringify cannot write (numbers beyond a double, deep nesting), put in place of
 * a marker string when a value is serialised by toJson.
 */
const deep = (open: string, close: string, depth: number, inner = '') => open.repeat(depth) + inner + close.repeat(depth);
const RAW_NUMBERS = ['1e400', '-1e400', '1E+2', '-0.0', '0.1e1', '1.00000000000000000000001', '123456789012345678901234567890'];
const RAW_DEEP_ARRAYS = [deep('[', ']', 64), deep('[', ']', 5000), deep('[', ']', 50_000)];
const RAW_DEEP_OBJECTS = [deep('{"a":', '}', 64, '1'), deep('{"a":', '}', 5000, '1'), deep('{"a":[', ']}', 20_000, '1')];
const RAW_JSON = [...RAW_NUMBERS, ...RAW_DEEP_ARRAYS, ...RAW_DEEP_OBJECTS];
const marker = (text: string) => `__raw_json_${RAW_JSON.indexOf(text)}__`;
const rawNumber = fc.constantFrom(...RAW_NUMBERS.map(marker));
const rawDeepArray = fc.constantFrom(...RAW_DEEP_ARRAYS.map(marker));
const rawDeepObject = fc.constantFrom(...RAW_DEEP_OBJECTS.map(marker));

/** JSON text of a generated value, with the raw markers put in. */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.replace(/"__raw_json_(\d+)__"/g, (_, i: string) => RAW_JSON[Number(i)] ?? 'null');
}

const smallJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 2 });
/** An object or array, never null: no scalar field accepts one. */
const container: fc.Arbitrary<unknown> = fc.oneof(
  fc.array(smallJson, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), smallJson, { maxKeys: 3 }),
  rawDeepArray,
  rawDeepObject,
);
const scalar: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 2, arbitrary: numericString },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: rawNumber },
);

const EXTRA_KEYS = [
  '_id',
  'id',
  'isAdmin',
  'user',
  'userId',
  'price',
  'totalPrice',
  'isPaid',
  'paidAt',
  'role',
  'passwordHash',
  'password_hash',
  '$where',
  'prototype',
];

// ---------------------------------------------------------------------------------------------
// Values shaped by the route's own schema
// ---------------------------------------------------------------------------------------------

export interface FuzzContext {
  /** Real ids by the resource that names them in paths: products, users, orders, reviews. */
  ids: Record<string, string[]>;
  /** Emails of real accounts. */
  emails: string[];
  /** Amounts an order really costs (the M-Pesa Amount). */
  amounts: number[];
  /** The secret of each kind of Daraja callback (stk, c2b, rev, ts): each hook opens only with its own. */
  hookSecret: (kind: HookSecretKind) => string;
  /** Real image files, made by the test: what an honest upload looks like. */
  images: { png: Uint8Array; gif: Uint8Array; tiff: Uint8Array };
}

type Kind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'unknown';

function kindOf(schema: JsonSchema): Kind {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' || schema.properties) return 'object';
  if (type === 'array' || schema.items) return 'array';
  if (type === 'string') return 'string';
  if (type === 'number' || type === 'integer') return 'number';
  if (type === 'boolean') return 'boolean';
  return 'unknown';
}

const PHONES = [
  '0708374149',
  '0711223344',
  '+254708374149',
  '254708374149',
  '0700000001',
  '712345678',
  '0712 345 678',
  708374149,
];
const IMAGE_REFS = [
  '/images/sample.webp',
  'https://example.com/x.png',
  '/uploads/0123456789abcdef01234567.png',
  'HTTPS://EXAMPLE.COM/A.PNG',
];
const HOSTILE_IMAGE_REFS = [
  'javascript:alert(1)',
  '//evil.example/x.png',
  'data:image/png;base64,AAAA',
  '/uploads/../../etc/passwd',
  '\\\\evil\\x.png',
  '/images/a\u0000.png',
  `https://example.com/${'a'.repeat(490)}`,
];

function allIds(ctx: FuzzContext): string[] {
  return Object.values(ctx.ids).flat();
}

/** A value a person might really send for this field (so the request can get past validation). */
function plausible(name: string, schema: JsonSchema, ctx: FuzzContext): fc.Arbitrary<unknown> {
  const n = name.toLowerCase();
  if (schema.format === 'uuid') return fc.oneof(fc.constantFrom(...allIds(ctx)), fc.uuid());
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  if (n.includes('email')) {
    return fc.oneof(
      fc.emailAddress(),
      fc.constantFrom(...ctx.emails),
      fc.emailAddress().map((e) => ` ${e.toUpperCase()} `),
    );
  }
  if (n.includes('password')) return fc.string({ unit: 'grapheme', minLength: 8, maxLength: 40 });
  if (n.includes('phone')) return fc.constantFrom(...PHONES);
  if (n.includes('postal')) return fc.constantFrom('00100', '00200', '100', 100, 0);
  if (n === 'image') return fc.constantFrom(...IMAGE_REFS);
  switch (kindOf(schema)) {
    case 'number':
      if (schema.type === 'integer' && !['amount', 'qty', 'rating'].includes(n)) return fc.integer({ min: 0, max: 1_000_000 });
      if (n === 'amount') return fc.oneof(fc.constantFrom(...ctx.amounts), fc.integer({ min: -10, max: 100_000 }));
      if (n === 'qty')
        return fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 5 }) }, fc.integer({ min: -2, max: 1002 }));
      if (n === 'rating')
        return fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 5 }) }, fc.integer({ min: -1, max: 6 }));
      return fc.oneof(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.double({ min: 0, max: 1e7, noNaN: true }).map((x) => Math.round(x * 100) / 100),
      );
    case 'boolean':
      return fc.oneof(fc.boolean(), fc.constantFrom('true', 'false', 'on', 'off', '1', '0'));
    default:
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
      return fc.string({ unit: 'grapheme', minLength: 1, maxLength: Math.min(schema.maxLength ?? 60, 60) });
  }
}

/** A value for a field of this schema: plausible, hostile, or of another type altogether. */
export function valueFor(schema: JsonSchema, name: string, ctx: FuzzContext, depth: number): fc.Arbitrary<unknown> {
  const kind = kindOf(schema);
  if (depth > 3 && (kind === 'object' || kind === 'array')) return scalar;
  switch (kind) {
    case 'object':
      return objectFor(schema, ctx, depth + 1);
    case 'array': {
      const item = schema.items ? valueFor(schema.items, name, ctx, depth + 1) : smallJson;
      return fc.oneof(
        { weight: 5, arbitrary: fc.array(item, { maxLength: 4 }) },
        { weight: 1, arbitrary: fc.array(item, { minLength: 99, maxLength: 102 }) },
        { weight: 1, arbitrary: scalar },
        { weight: 1, arbitrary: container },
      );
    }
    case 'unknown':
      return fc.oneof(smallJson, rawDeepArray, rawDeepObject, scalar);
    default:
      return fc.oneof(
        { weight: 4, arbitrary: plausible(name, schema, ctx) },
        { weight: 3, arbitrary: scalar },
        { weight: 1, arbitrary: container },
      );
  }
}

/** A value for a field that is hostile in the way its type allows: odd text for text, odd numbers for numbers. */
function hostileFor(schema: JsonSchema, name: string, ctx: FuzzContext, depth: number): fc.Arbitrary<unknown> {
  switch (kindOf(schema)) {
    case 'object':
    case 'array':
    case 'unknown':
      return valueFor(schema, name, ctx, depth);
    case 'string':
      return fc.oneof(
        { weight: 6, arbitrary: hostileString },
        { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_IMAGE_REFS) },
        { weight: 1, arbitrary: scalar },
        { weight: 1, arbitrary: container },
      );
    default:
      return fc.oneof(
        { weight: 4, arbitrary: hostileNumber },
        { weight: 2, arbitrary: numericString },
        { weight: 1, arbitrary: rawNumber },
        { weight: 1, arbitrary: scalar },
        { weight: 1, arbitrary: container },
      );
  }
}

/** A value of the schema that a person might send: every field present and plausible. */
function plausibleValue(schema: JsonSchema, name: string, ctx: FuzzContext, depth: number): fc.Arbitrary<unknown> {
  switch (kindOf(schema)) {
    case 'object': {
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, field] of Object.entries(schema.properties ?? {})) model[key] = plausibleValue(field, key, ctx, depth + 1);
      return fc.record(model);
    }
    case 'array':
      return depth > 3 || !schema.items
        ? fc.constant([])
        : fc.array(plausibleValue(schema.items, name, ctx, depth + 1), { minLength: 1, maxLength: 3 });
    case 'unknown':
      return smallJson;
    default:
      return plausible(name, schema, ctx);
  }
}

/**
 * An object with the schema's fields and hostile values: all of them, some of them, or — the way
 * to reach past validation into the database — every field plausible but one. Maybe extra fields.
 */
function objectFor(schema: JsonSchema, ctx: FuzzContext, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  const plausibleModel: Record<string, fc.Arbitrary<unknown>> = {};
  const hostileModel: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    model[key] = valueFor(field, key, ctx, depth);
    plausibleModel[key] = plausibleValue(field, key, ctx, depth);
    hostileModel[key] = hostileFor(field, key, ctx, depth);
  }
  const keys = Object.keys(model);
  const oneHostile = fc
    .tuple(fc.record(plausibleModel), fc.constantFrom(...(keys.length > 0 ? keys : ['x'])))
    .chain(([base, key]) => (hostileModel[key] ?? smallJson).map((value) => ({ ...base, [key]: value })));
  const extras = fc.dictionary(fc.oneof(fc.constantFrom(...EXTRA_KEYS), fc.string({ maxLength: 12 })), smallJson, { maxKeys: 3 });
  return fc
    .tuple(
      fc.oneof(
        { weight: 2, arbitrary: fc.record(model) },
        { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) },
        { weight: 3, arbitrary: oneHostile },
      ),
      fc.option(extras, { freq: 3 }),
    )
    .map(([known, extra]) => ({ ...(extra ?? {}), ...known }));
}

/** A value the field's type can never accept: a container for a scalar, a scalar for a container. */
function mismatchFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  switch (kindOf(schema)) {
    case 'object':
      return fc.oneof(fc.array(smallJson, { maxLength: 3 }), hostileString, hostileNumber, fc.boolean(), rawDeepArray);
    case 'array':
      return fc.oneof(
        fc.dictionary(fc.string({ maxLength: 8 }), smallJson, { maxKeys: 3 }),
        hostileString,
        hostileNumber,
        fc.boolean(),
        rawDeepObject,
      );
    default:
      return container;
  }
}

/**
 * A body the route's schema can never accept: not an object at all, or an object with at least one
 * declared field of an impossible type (whatever the other fields hold).
 */
function neverValidBody(schema: JsonSchema, ctx: FuzzContext): fc.Arbitrary<unknown> {
  const notAnObject = fc.oneof(
    fc.array(smallJson, { maxLength: 4 }),
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    rawNumber,
    rawDeepArray,
  );
  const typed = Object.entries(schema.properties ?? {}).filter(([, field]) => kindOf(field) !== 'unknown');
  if (typed.length === 0) return notAnObject;
  const mismatched = fc
    .tuple(objectFor(schema, ctx, 1), fc.constantFrom(...typed))
    .chain(([object, [key, field]]) => mismatchFor(field).map((bad) => ({ ...object, [key]: bad })));
  return fc.oneof({ weight: 1, arbitrary: notAnObject }, { weight: 3, arbitrary: mismatched });
}

/** What Daraja's callback looks like, with hostile values (its CheckoutRequestID never matches a prompt). */
function darajaCallbackBody(): fc.Arbitrary<unknown> {
  const item = fc.record({
    Name: fc.oneof(fc.constantFrom('Amount', 'MpesaReceiptNumber', 'TransactionDate', 'PhoneNumber', 'Balance'), hostileString),
    Value: fc.oneof(scalar, container),
  });
  const callback = fc.record(
    {
      MerchantRequestID: fc.oneof(fc.string({ maxLength: 30 }), scalar),
      CheckoutRequestID: fc.oneof(
        fc.string({ minLength: 1, maxLength: 40 }).map((s) => `ws_CO_fuzz_${s}`),
        scalar,
        container,
      ),
      ResultCode: fc.oneof(fc.constantFrom(0, '0', 1032, 1037, 2001, 1, 'SFC_IC0003'), scalar),
      ResultDesc: fc.oneof(fc.string({ maxLength: 40 }), scalar),
      CallbackMetadata: fc.oneof(fc.record({ Item: fc.oneof(fc.array(item, { maxLength: 6 }), scalar) }), scalar),
    },
    { requiredKeys: [] },
  );
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ Body: fc.record({ stkCallback: callback }) }) },
    { weight: 1, arbitrary: smallJson },
  );
}

/** Paybill/Till notices: Daraja's fields, every one as a string, a number, hostile text or missing. */
function c2bBody(): fc.Arbitrary<unknown> {
  const notice = fc.record(
    {
      TransactionType: fc.oneof(fc.constantFrom('Pay Bill', 'Buy Goods', ''), scalar),
      TransID: fc.oneof(
        fc.string({ minLength: 1, maxLength: 12 }).map((s) => `FZ${s}`),
        scalar,
        container,
      ),
      TransTime: fc.oneof(fc.constantFrom('20261121093041', '20260231000000', ''), scalar),
      TransAmount: fc.oneof(fc.constantFrom('1', '10.00', '-5', '1e9', '0x10'), scalar),
      BusinessShortCode: fc.oneof(fc.constantFrom('174379', ''), scalar),
      BillRefNumber: fc.oneof(fc.string({ maxLength: 24 }), hostileString, scalar),
      MSISDN: fc.oneof(fc.constantFrom('2547 ***** 126', ''), scalar),
      FirstName: fc.oneof(fc.string({ maxLength: 20 }), hostileString),
    },
    { requiredKeys: [] },
  );
  return fc.oneof({ weight: 4, arbitrary: notice }, { weight: 1, arbitrary: smallJson });
}

// ---------------------------------------------------------------------------------------------
// Paths and queries
// ---------------------------------------------------------------------------------------------

/** Percent-encodes every byte outside the unreserved set (lone surrogates become U+FFFD, as a browser sends them). */
export function percentEncode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const matches = (param: ParamSpec, value: string) =>
  (param.schema.pattern === undefined || new RegExp(param.schema.pattern).test(value)) &&
  (param.schema.maxLength === undefined || value.length <= param.schema.maxLength) &&
  (param.schema.minLength === undefined || value.length >= param.schema.minLength);

/** A path value the parameter's schema refuses (and that still names this route: not empty, not a dot segment). */
function malformedParam(param: ParamSpec): fc.Arbitrary<string> {
  const free = param.schema.pattern === undefined && param.schema.format === undefined;
  const tooLong = (param.schema.maxLength ?? 200) + 1;
  const values = free
    ? fc.tuple(fc.integer({ min: tooLong, max: tooLong + 100 }), fc.constantFrom('a', 'é', '<', '0')).map(([n, c]) => c.repeat(n))
    : fc.oneof(
        hostileString,
        fc.string({ maxLength: 40 }),
        fc.uuid().map((u) => u.slice(1)),
        fc.uuid().map((u) => `${u}0`),
        fc.uuid().map((u) => u.replace(/-/g, '')),
        fc.uuid().map((u) => `g${u.slice(1)}`),
        fc.uuid().map((u) => ` ${u}`),
        fc.constantFrom('0', '-1', '1.5', 'null', 'undefined', '{}', '[]', "' OR 1=1 --"),
      );
  const encoded = values.filter((v) => v !== '' && v !== '.' && v !== '..' && !matches(param, v)).map((v) => percentEncode(v));
  // Now and then a raw, broken percent-encoding that the server itself must decode.
  return fc.oneof(
    { weight: 8, arbitrary: encoded },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%C0%AF', '%u0000') },
  );
}

/** A well-formed value that names nothing: a fresh UUID, a random token. */
function unknownParam(param: ParamSpec): fc.Arbitrary<string> {
  if (param.schema.format === 'uuid') return fc.uuid();
  if (param.schema.pattern) return fc.stringMatching(new RegExp(param.schema.pattern)).filter((v) => matches(param, v));
  return fc.string({ minLength: 1, maxLength: Math.min(param.schema.maxLength ?? 100, 100) }).map(percentEncode);
}

/** The resource a path parameter names: the segment before it, or its own name (reviewId → reviews). */
function resourceOf(route: RouteSpec, param: ParamSpec): string {
  if (param.name.endsWith('Id') && param.name !== 'id') return `${param.name.slice(0, -2)}s`;
  const segments = route.path.split('/');
  const at = segments.indexOf(`{${param.name}}`);
  return segments[at - 1] ?? '';
}

/** A real id when the test has one for the resource, otherwise an unknown one. */
function realParam(route: RouteSpec, param: ParamSpec, ctx: FuzzContext): fc.Arbitrary<string> {
  if (isDarajaHook(route.key)) return fc.constant(ctx.hookSecret(hookKindOf(route.key)));
  const ids = ctx.ids[resourceOf(route, param)] ?? [];
  return ids.length > 0 ? fc.constantFrom(...ids) : unknownParam(param);
}

type PathMode = 'real' | 'unknown' | 'malformed';

function pathFor(route: RouteSpec, ctx: FuzzContext, mode: PathMode): fc.Arbitrary<string> {
  if (route.pathParams.length === 0) return fc.constant(route.path);
  const broken = fc.nat({ max: route.pathParams.length - 1 });
  return broken.chain((brokenIndex) =>
    fc
      .tuple(
        ...route.pathParams.map((param, i) => {
          if (mode === 'malformed' && i === brokenIndex) return malformedParam(param);
          if (mode === 'unknown') return unknownParam(param);
          return realParam(route, param, ctx);
        }),
      )
      .map((values) => route.pathParams.reduce((path, param, i) => path.replace(`{${param.name}}`, values[i] ?? ''), route.path)),
  );
}

function queryValue(param: ParamSpec, ctx: FuzzContext): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: plausible(param.name, param.schema, ctx).map((v) => String(v)) },
    { weight: 2, arbitrary: hostileString },
    { weight: 1, arbitrary: numericString },
  );
}

/** A query string with the route's parameters (present or not, plausible or hostile) and extra ones. */
function queryFor(route: RouteSpec, ctx: FuzzContext): fc.Arbitrary<string> {
  const params = fc.tuple(
    ...route.query.map((param) =>
      fc
        .option(fc.array(queryValue(param, ctx), { minLength: 1, maxLength: 2 }), { freq: 4 })
        .map((values) => (values ?? []).map((v): [string, string] => [param.name, v])),
    ),
  );
  const extras = fc.array(fc.tuple(fc.oneof(fc.string({ maxLength: 10 }), fragment), hostileString), { maxLength: 2 });
  const rawTail = fc.option(fc.constantFrom('&%', '&a=%zz', '&%00=%00', '&&&', '&a[b]=1', '&__proto__=x'), { freq: 5 });
  return fc.tuple(params, extras, rawTail).map(([own, extra, tail]) => {
    const search = new URLSearchParams([...own.flat(), ...extra]).toString();
    const query = search + (tail ?? '');
    return query === '' ? '' : `?${query}`;
  });
}

/** A value no schema of this query parameter accepts, or undefined when every string is acceptable. */
function neverValidQueryValue(param: ParamSpec): fc.Arbitrary<string> | undefined {
  const s = param.schema;
  if (s.enum && s.enum.length > 0) {
    const allowed = s.enum.map(String);
    return hostileString.filter((v) => !allowed.includes(v));
  }
  const kind = kindOf(s);
  if (kind === 'boolean') return hostileString.filter((v) => v !== 'true' && v !== 'false');
  if (kind === 'number') {
    const min = s.minimum ?? Number.NEGATIVE_INFINITY;
    const max = s.maximum ?? Number.POSITIVE_INFINITY;
    return fc.oneof(hostileString, numericString).filter((v) => {
      const n = Number(v);
      return v.trim() !== '' && !(Number.isInteger(n) && n >= min && n <= max);
    });
  }
  if (kind === 'string' && s.maxLength !== undefined) {
    const max = s.maxLength;
    return fc
      .tuple(fc.integer({ min: max + 1, max: max + 50 }), fc.constantFrom('x', 'é', '<', '0'))
      .map(([n, c]) => c.repeat(n));
  }
  return undefined;
}

/** A query string in which one constrained parameter is impossible (or given twice). */
function neverValidQuery(route: RouteSpec, ctx: FuzzContext): fc.Arbitrary<string> | undefined {
  const candidates = route.query
    .map((param) => ({ param, bad: neverValidQueryValue(param) }))
    .filter((c): c is { param: ParamSpec; bad: fc.Arbitrary<string> } => c.bad !== undefined);
  if (candidates.length === 0) return undefined;
  return fc.constantFrom(...candidates).chain(({ param, bad }) =>
    fc
      .tuple(
        fc.oneof(
          bad.map((v): [string, string][] => [[param.name, v]]),
          fc.tuple(queryValue(param, ctx), queryValue(param, ctx)).map(([a, b]): [string, string][] => [
            [param.name, a],
            [param.name, b],
          ]),
        ),
        fc.array(fc.tuple(fc.string({ maxLength: 10 }), hostileString), { maxLength: 2 }),
      )
      .map(([own, extra]) => `?${new URLSearchParams([...extra, ...own]).toString()}`),
  );
}

// ---------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------

const json = (value: unknown): BodySpec => ({ type: 'text', contentType: 'application/json', text: toJson(value) });

/** Form fields from a value, as a browser's form would flatten it. */
function formFields(value: unknown): [string, string][] {
  const text = (v: unknown) =>
    typeof v === 'string' ? v : v === null || v === undefined ? '' : typeof v === 'object' ? toJson(v) : String(v);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value).map(([k, v]): [string, string] => [k, text(v)]);
  }
  return [['value', text(value)]];
}

const ODD_JSON_TYPES = [
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/json; boundary=x',
  'application/vnd.api+json',
  'application/json-patch+json',
];

/** Any body, valid or not, in any of the encodings the shop may meet. */
function anyBody(route: RouteSpec, ctx: FuzzContext): fc.Arbitrary<BodySpec> {
  const value =
    route.key === DARAJA_CALLBACK
      ? darajaCallbackBody()
      : C2B_HOOKS.has(route.key)
        ? c2bBody()
        : route.body
          ? valueFor(route.body, 'body', ctx, 0)
          : fc.oneof(fc.constant({}), smallJson);
  return fc.oneof(
    { weight: 8, arbitrary: value.map(json) },
    {
      weight: 2,
      arbitrary: value.map(
        (v): BodySpec => ({
          type: 'text',
          contentType: 'application/x-www-form-urlencoded',
          text: new URLSearchParams(formFields(v)).toString(),
        }),
      ),
    },
    { weight: 2, arbitrary: value.map((v): BodySpec => ({ type: 'form', fields: formFields(v) })) },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }).map(json) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(value, fc.constantFrom(...ODD_JSON_TYPES))
        .map(([v, contentType]): BodySpec => ({ type: 'text', contentType, text: toJson(v) })),
    },
    {
      weight: 1,
      arbitrary: value.map((v): BodySpec => ({ type: 'text', contentType: 'application/json', text: `\ufeff${toJson(v)}` })),
    },
    { weight: 1, arbitrary: fc.constant<BodySpec>({ type: 'none' }) },
  );
}

const WRONG_TYPES = [
  'text/plain',
  'text/html',
  'text/xml',
  'application/xml',
  'application/javascript',
  'application/octet-stream',
  'application/x-yaml',
  'application/graphql',
  'text/csv',
  'image/png',
  'image/svg+xml',
  'application/jsonx',
  'application/x-www-form-urlencodedx',
  'multipart/mixed; boundary=x',
  'multipart/form-datax; boundary=x',
  'text/json',
];

function wrongContentType(): fc.Arbitrary<BodySpec> {
  return fc
    .tuple(fc.constantFrom(...WRONG_TYPES), fc.oneof(hostileString, smallJson.map(toJson)))
    .filter(([, text]) => text !== '')
    .map(([contentType, text]): BodySpec => ({ type: 'text', contentType, text }));
}

const BROKEN_JSON = [
  '{',
  '[',
  '{"a":',
  "{'a':1}",
  '{"a":1,}',
  '[1,]',
  'NaN',
  'undefined',
  '{"a":undefined}',
  '{"a":01}',
  '{"a":"\\x"}',
  '{"a":1}}',
  '{"a" 1}',
  '\u0000',
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"isAdmin":true}}}',
  '{"a":1}{"b":2}',
  '// comment\n{}',
];

function brokenJson(route: RouteSpec, ctx: FuzzContext): fc.Arbitrary<BodySpec> {
  const whole = route.body
    ? objectFor(route.body, ctx, 1)
    : fc.dictionary(fc.string({ maxLength: 8 }), smallJson, { maxKeys: 4 });
  // A strict prefix of an object's JSON text is never valid JSON.
  const cut = whole
    .map((v) => JSON.stringify(v))
    .chain((text) => fc.nat({ max: Math.max(0, text.length - 1) }).map((n) => text.slice(0, n)));
  return fc
    .tuple(
      fc.oneof({ weight: 2, arbitrary: cut }, { weight: 1, arbitrary: fc.constantFrom(...BROKEN_JSON) }),
      fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON'),
    )
    .map(([text, contentType]): BodySpec => ({ type: 'text', contentType, text }));
}

function multipartText(boundary: string, fields: [string, string][]): string {
  const parts = fields.map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return `${parts.join('')}--${boundary}--\r\n`;
}

/** A multipart body cut off before its end, without a boundary, or with a boundary that never comes. */
function truncatedMultipart(route: RouteSpec, ctx: FuzzContext): fc.Arbitrary<BodySpec> {
  const fields = (route.body ? objectFor(route.body, ctx, 1) : smallJson).map((v) => {
    const f = formFields(v).map(([k, value]): [string, string] => [k.replace(/["\r\n]/g, ''), value]);
    return f.length > 0 ? f : ([['name', 'x']] as [string, string][]);
  });
  const boundary = fc.stringMatching(/^[A-Za-z0-9]{8,30}$/);
  return fc.tuple(boundary, fields, fc.nat(), fc.nat({ max: 3 })).map(([b, f, at, variant]): BodySpec => {
    const full = multipartText(b, f);
    if (variant === 1) return { type: 'text', contentType: 'multipart/form-data', text: full };
    if (variant === 2) return { type: 'text', contentType: `multipart/form-data; boundary=${b}x`, text: full };
    // Somewhere after the first boundary line and before the closing boundary.
    const start = b.length + 3;
    const end = full.lastIndexOf(`\r\n--${b}--`);
    const cutAt = start + (at % Math.max(1, end - start));
    return { type: 'text', contentType: `multipart/form-data; boundary=${b}`, text: full.slice(0, cutAt) };
  });
}

function tooLarge(route: RouteSpec): fc.Arbitrary<BodySpec> {
  const names = Object.keys(route.body?.properties ?? {});
  const name = names.length > 0 ? fc.constantFrom(...names) : fc.constant('x');
  return fc.tuple(name, fc.integer({ min: 300 * 1024, max: 600 * 1024 }), fc.constantFrom('a', 'é', '\u0000')).map(
    ([field, n, c]): BodySpec => ({
      type: 'text',
      contentType: 'application/json',
      text: JSON.stringify({ [field]: c.repeat(n) }),
    }),
  );
}

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_MAGIC = [0xff, 0xd8, 0xff, 0xe0];
const SIX_MB = 6 * 1024 * 1024;

/** Files that are not the JPEG, PNG or WebP image they claim to be, or are too big, or are not there. */
function lyingFile(ctx: FuzzContext): fc.Arbitrary<BodySpec> {
  const claimedName = fc.constantFrom(
    'photo.png',
    'photo.jpg',
    'photo.jpeg',
    'photo.webp',
    'photo',
    'photo.png.html',
    '../../x.png',
  );
  const claimedType = fc.constantFrom('image/png', 'image/jpeg', 'image/webp', 'application/octet-stream', 'text/html');
  const content = fc.oneof(
    fc.constant(utf8('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>')),
    fc.constant(utf8('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(1)</script></svg>')),
    fc.constant(utf8('alert(document.cookie); fetch("/api/users")')),
    fc.constant(utf8('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF')),
    fc.constant(utf8('GIF89a/*<script>alert(1)</script>*/')),
    fc.constant(ctx.images.gif),
    fc.constant(ctx.images.tiff),
    fc.uint8Array({ maxLength: 2000 }).map((rest) => new Uint8Array([...PNG_MAGIC, ...rest])),
    fc.uint8Array({ maxLength: 2000 }).map((rest) => new Uint8Array([...JPEG_MAGIC, ...rest])),
    fc.uint8Array({ maxLength: 2000 }).map((rest) => new Uint8Array([...utf8('RIFF\u0010\u0000\u0000\u0000WEBPVP8 '), ...rest])),
    fc.uint8Array({ minLength: 1, maxLength: 4000 }),
  );
  const lie = fc
    .tuple(content, claimedName, claimedType)
    .map(([bytes, filename, fileType]): BodySpec => ({ type: 'file', field: 'image', filename, fileType, bytes, fields: [] }));
  // A real image bigger than 5 MB (padded), an empty file, a real image in another field, no file at all.
  const oversized = fc.constant<BodySpec>({
    type: 'file',
    field: 'image',
    filename: 'big.png',
    fileType: 'image/png',
    bytes: (() => {
      const big = new Uint8Array(SIX_MB);
      big.set(ctx.images.png);
      return big;
    })(),
    fields: [],
  });
  const empty = fc.constant<BodySpec>({
    type: 'file',
    field: 'image',
    filename: 'empty.png',
    fileType: 'image/png',
    bytes: new Uint8Array(),
    fields: [],
  });
  const wrongField = fc.constantFrom('file', 'photo', 'images', 'Image', '').map(
    (field): BodySpec => ({
      type: 'file',
      field,
      filename: 'photo.png',
      fileType: 'image/png',
      bytes: ctx.images.png,
      fields: [],
    }),
  );
  const noFile = fc
    .array(
      fc.tuple(
        fc.constantFrom('image', 'name', 'x'),
        hostileString.filter((s) => s !== ''),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((fields): BodySpec => ({ type: 'form', fields }));
  return fc.oneof(
    { weight: 8, arbitrary: lie },
    { weight: 1, arbitrary: oversized },
    { weight: 1, arbitrary: empty },
    { weight: 1, arbitrary: wrongField },
    { weight: 1, arbitrary: noFile },
  );
}

/** The first bytes of a body whose sender goes away: a form with an image, or JSON. */
function vanishing(route: RouteSpec, ctx: FuzzContext): fc.Arbitrary<FuzzCase['vanish']> {
  const formWithImage = (boundary: string) =>
    new Uint8Array(
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
        Buffer.from(ctx.images.png),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    );
  const jsonBody = (route.body ? objectFor(route.body, ctx, 1) : smallJson).map((v) => utf8(toJson(v)));
  return fc.oneof(
    fc.tuple(fc.stringMatching(/^[A-Za-z0-9]{10,20}$/), fc.double({ min: 0, max: 0.95, noNaN: true })).map(([b, part]) => {
      const bytes = formWithImage(b);
      return { contentType: `multipart/form-data; boundary=${b}`, bytes, sendBytes: Math.floor(bytes.length * part) };
    }),
    fc
      .tuple(jsonBody, fc.double({ min: 0, max: 0.95, noNaN: true }))
      .map(([bytes, part]) => ({ contentType: 'application/json', bytes, sendBytes: Math.floor(bytes.length * part) })),
  );
}

// ---------------------------------------------------------------------------------------------
// The two families
// ---------------------------------------------------------------------------------------------

const who: fc.Arbitrary<Who> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Who>('admin') },
  { weight: 2, arbitrary: fc.constant<Who>('shopper') },
  { weight: 1, arbitrary: fc.constant<Who>('guest') },
);

type Weighted = { weight: number; arbitrary: fc.Arbitrary<FuzzCase> };

function cases(
  route: RouteSpec,
  kind: string,
  expect: Expectation,
  path: fc.Arbitrary<string>,
  body: fc.Arbitrary<BodySpec>,
  options: { xsrf?: fc.Arbitrary<boolean>; query?: fc.Arbitrary<string>; vanish?: fc.Arbitrary<FuzzCase['vanish']> } = {},
): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      who,
      path,
      query: options.query ?? fc.constant(''),
      body,
      xsrf: options.xsrf ?? fc.constant(true),
      vanish: options.vanish ?? fc.constant(undefined),
    })
    .map(({ who: as, path: p, query, body: b, xsrf, vanish }) => ({
      kind,
      who: as,
      expect,
      method: route.method,
      url: p + query,
      xsrf,
      body: b,
      ...(vanish && { vanish }),
    }));
}

/**
 * Requests to this route that must be refused (or, for the M-Pesa callback, acknowledged without
 * effect), whatever identity sends them; undefined when the route has no input to refuse.
 */
export function refusedCases(route: RouteSpec, ctx: FuzzContext): fc.Arbitrary<FuzzCase> | undefined {
  const unsafe = UNSAFE_METHODS.has(route.method);
  const daraja = isDarajaHook(route.key);
  const body = unsafe ? anyBody(route, ctx) : fc.constant<BodySpec>({ type: 'none' });
  const real = pathFor(route, ctx, 'real');
  const kinds: Weighted[] = [];
  if (route.pathParams.length > 0) {
    kinds.push({
      weight: 4,
      arbitrary: cases(route, 'malformed id', daraja ? 'acknowledged' : 'refused', pathFor(route, ctx, 'malformed'), body),
    });
    kinds.push({
      weight: 3,
      arbitrary: cases(
        route,
        daraja ? 'wrong callback secret' : 'unknown id',
        daraja ? 'acknowledged' : 'refused',
        pathFor(route, ctx, 'unknown'),
        body,
      ),
    });
  }
  const badQuery = neverValidQuery(route, ctx);
  if (badQuery)
    kinds.push({ weight: 4, arbitrary: cases(route, 'impossible query', 'refused', real, body, { query: badQuery }) });
  if (unsafe) {
    // A Daraja hook keeps whatever body it is sent, as text, and acknowledges it: an
    // acknowledged callback is never lost. None of these pays or changes anything.
    const unreadable = daraja ? 'acknowledged' : 'refused';
    kinds.push({ weight: 2, arbitrary: cases(route, 'wrong content type', unreadable, real, wrongContentType()) });
    kinds.push({ weight: 2, arbitrary: cases(route, 'broken JSON', unreadable, real, brokenJson(route, ctx)) });
    kinds.push({ weight: 2, arbitrary: cases(route, 'truncated multipart', unreadable, real, truncatedMultipart(route, ctx)) });
    kinds.push({ weight: 1, arbitrary: cases(route, 'oversized body', 'refused', real, tooLarge(route)) });
    kinds.push({
      weight: 1,
      arbitrary: cases(route, 'no XSRF token', daraja ? 'acknowledged' : 'refused', real, body, { xsrf: fc.constant(false) }),
    });
    kinds.push({
      weight: 1,
      arbitrary: cases(route, 'client vanishes mid-body', 'any', real, fc.constant<BodySpec>({ type: 'none' }), {
        vanish: vanishing(route, ctx),
      }),
    });
    if (route.body && kindOf(route.body) === 'object' && Object.keys(route.body.properties ?? {}).length > 0) {
      kinds.push({
        weight: 6,
        arbitrary: cases(route, 'body that can never validate', 'refused', real, neverValidBody(route.body, ctx).map(json)),
      });
    }
  }
  if (daraja) {
    kinds.push({
      weight: 6,
      arbitrary: cases(route, 'callback for no prompt', 'acknowledged', real, darajaCallbackBody().map(json)),
    });
  }
  if (route.key === UPLOAD_ROUTE)
    kinds.push({ weight: 10, arbitrary: cases(route, 'lying file', 'refused', real, lyingFile(ctx)) });
  return kinds.length > 0 ? fc.oneof(...kinds) : undefined;
}

/** Hostile but possibly valid requests: any 2xx or 4xx is a right answer, a 5xx or a hang never is. */
export function mixedCases(route: RouteSpec, ctx: FuzzContext): fc.Arbitrary<FuzzCase> {
  const unsafe = UNSAFE_METHODS.has(route.method);
  // Deleting the test's own fixtures would only make later requests 404: DELETEs name unknown ids.
  const path =
    route.method === 'DELETE'
      ? pathFor(route, ctx, 'unknown')
      : fc.oneof(
          { weight: 4, arbitrary: pathFor(route, ctx, 'real') },
          { weight: 1, arbitrary: pathFor(route, ctx, 'unknown') },
          { weight: 1, arbitrary: pathFor(route, ctx, 'malformed') },
        );
  const body = unsafe ? anyBody(route, ctx) : fc.constant<BodySpec>({ type: 'none' });
  return cases(route, 'hostile input', isDarajaHook(route.key) ? 'acknowledged' : 'any', path, body, {
    query: queryFor(route, ctx),
  });
}

/**
 * HTTP plumbing of the Daraja simulator (part of the test double in index.ts): Daraja's error
 * bodies, JSON answers and request bodies as Daraja reads them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newRequestId } from './wire.js';

const MAX_BODY_BYTES = 64 * 1024;

interface DarajaErrorBody {
  requestId: string;
  errorCode: string;
  errorMessage: string;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: DarajaErrorBody,
  ) {
    super(body.errorMessage);
  }
}

export function darajaError(status: number, errorCode: string, errorMessage: string, requestId = newRequestId()): HttpError {
  return new HttpError(status, { requestId, errorCode, errorMessage });
}

export const invalidField = (field: string): HttpError => darajaError(400, '400.002.02', `Bad Request - Invalid ${field}`);

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  // Daraja answers a missing/wrong Content-Type with this misleading message (docs/payments.md, Daraja in brief).
  if (mediaType !== 'application/json') throw invalidField('BusinessShortCode');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw darajaError(400, '400.002.02', 'Bad Request - Request body too large');
    chunks.push(buf);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw darajaError(400, '400.002.02', 'Bad Request - Invalid JSON payload');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw darajaError(400, '400.002.02', 'Bad Request - Invalid JSON payload');
  }
  return parsed as Record<string, unknown>;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function hostForUrl(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

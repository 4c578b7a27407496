import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ErrorBody } from '../../../shared/schemas/common.js';
import { AppError, sqlStateOf } from '../../errors.js';

/**
 * One place decides what a failure looks like: a 4xx with `{ errors: [{ msg, path }] }` for
 * anything the client can fix, a 500 with a generic message (the cause logged with the request
 * id) for anything else. No stack trace, driver message or HTML page ever reaches a client.
 */

const GENERIC_500 = 'Something went wrong on our side. Please try again.';

/** Fastify's and its plugins' own client errors, reworded for people. */
const FRAMEWORK_MESSAGES: Record<string, { status: number; msg: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, msg: 'The request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, msg: 'The request body is empty; send a JSON object' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, msg: 'The request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, msg: 'Unsupported content type; send JSON or form data' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, msg: 'The Content-Length header does not match the body' },
  FST_ERR_CTP_INVALID_TYPE: { status: 415, msg: 'Unsupported content type; send JSON or form data' },
  FST_REQ_FILE_TOO_LARGE: { status: 413, msg: 'The file is too large' },
  FST_FILES_LIMIT: { status: 413, msg: 'Too many files in one request' },
  FST_FIELDS_LIMIT: { status: 413, msg: 'Too many fields in one request' },
  FST_PARTS_LIMIT: { status: 413, msg: 'Too many parts in one request' },
  FST_PROTO_VIOLATION: { status: 400, msg: 'The request body is not allowed' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { status: 415, msg: 'Send the file as multipart/form-data' },
  FST_ERR_BAD_URL: { status: 400, msg: 'The address is not valid' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, msg: 'The address is too long' },
  FST_ERR_ASYNC_CONSTRAINT: { status: 400, msg: 'The request is not valid' },
};

/**
 * PostgreSQL refusing a value the client sent is the client's fault, not the shop's: a NUL
 * character in any text (22021; PostgreSQL text cannot hold one, and no schema refuses it), a
 * character the database encoding cannot hold (22P05), or a number beyond its column (22003, e.g.
 * an order whose total in cents is past the integer column's 21,474,836.47 Ksh). The statement
 * failed, so nothing was written (a transaction rolls back). Found by test/security/fuzz.test.ts,
 * which got a 500 for each of them.
 */
const CLIENT_DATA_ERRORS: Record<string, string> = {
  '22021': 'The request contains a character that is not allowed (such as a NUL character)',
  '22P05': 'The request contains a character that is not allowed (such as a NUL character)',
  '22003': 'A number in the request is too large',
};

function describeValidation(error: FastifyError): ErrorBody['errors'] {
  if (!hasZodFastifySchemaValidationErrors(error)) {
    return [{ msg: error.message }];
  }
  const part = error.validationContext;
  return error.validation.map((issue) => {
    const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
    if (path === '' && issue.keyword === 'invalid_type') {
      return { msg: part === 'body' ? 'The request body must be a JSON object' : 'The request is not valid' };
    }
    return { msg: issue.message ?? 'This value is not valid', path };
  });
}

/**
 * Busboy, under @fastify/multipart, reports a cut-off or garbled form as a plain Error with no
 * code or status; where it comes from is the only sign that the client, not the server, is at fault.
 */
function isMultipartParseError(error: FastifyError, request: FastifyRequest): boolean {
  return request.isMultipart?.() === true && !error.code && !error.statusCode && (error.stack ?? '').includes('busboy');
}

function send(reply: FastifyReply, status: number, errors: ErrorBody['errors']) {
  return reply.status(status).type('application/json; charset=utf-8').send({ errors });
}

/** A 404 for an unknown API path or missing file, in the error shape. */
export function sendNotFound(request: FastifyRequest, reply: FastifyReply) {
  const path = (request.url.split('?')[0] ?? '').slice(0, 200);
  return send(reply, 404, [{ msg: `Not found: ${request.method} ${path}` }]);
}

export default fp(
  async function errorHandling(app: FastifyInstance) {
    app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      if (error instanceof AppError) {
        return send(reply, error.statusCode, [{ msg: error.message, ...(error.path && { path: error.path }) }]);
      }
      if (error.validation) {
        return send(reply, 400, describeValidation(error));
      }
      const known = error.code ? FRAMEWORK_MESSAGES[error.code] : undefined;
      if (known) return send(reply, known.status, [{ msg: known.msg }]);
      const sqlState = sqlStateOf(error);
      const dataError = sqlState ? CLIENT_DATA_ERRORS[sqlState] : undefined;
      if (dataError) {
        request.log.warn({ err: error, sqlState }, 'the database refused a value of the request');
        return send(reply, 400, [{ msg: dataError }]);
      }
      if (isMultipartParseError(error, request)) {
        return send(reply, 400, [{ msg: 'The form data is incomplete or malformed. Please try again.' }]);
      }
      if (error.statusCode === 429) {
        return send(reply, 429, [{ msg: error.message || 'Too many attempts. Please wait a moment and try again.' }]);
      }
      if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
        request.log.info({ code: error.code, msg: error.message }, 'client error');
        return send(reply, error.statusCode, [{ msg: 'The request is not valid' }]);
      }
      request.log.error({ err: error }, 'request failed');
      return send(reply, 500, [{ msg: GENERIC_500 }]);
    });
  },
  { name: 'errors' },
);

/**
 * Fastify answers some malformed requests before any route, hook or the error handler above sees
 * them, each in its own `{ error, message, statusCode }` shape: a path with a broken percent-encoding
 * (FST_ERR_BAD_URL), a path parameter longer than maxParamLength (FST_ERR_MAX_PARAM_LENGTH), and,
 * from Node's HTTP parser, a request line and headers past 16 KB (431) or unparseable ones (400).
 * Given to Fastify as its `frameworkErrors` and `clientErrorHandler` options, these two answer them
 * in the shop's error shape too (test/security/fuzz.test.ts sends all of them).
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const known = FRAMEWORK_MESSAGES[error.code];
  return send(reply, known?.status ?? 400, [{ msg: known?.msg ?? 'The request is not valid' }]);
}

export function clientErrorHandler(error: Error & { code?: string }, socket: Socket) {
  // A reset connection has nobody left to answer (as Fastify's own handler does).
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, msg] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The address or the request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request took too long to arrive']
        : [400, 'The request is not valid HTTP'];
  const body = JSON.stringify({ errors: [{ msg }] });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

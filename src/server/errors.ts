/**
 * A failure the client caused or may see, with the status and message to answer.
 * The error handler turns it into `{ errors: [{ msg, path }] }`; anything else is a 500.
 */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly path?: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (msg: string, path?: string) => new AppError(400, msg, path);
export const unauthorized = (msg = 'Please sign in to continue') => new AppError(401, msg);
export const forbidden = (msg = 'You are not allowed to do that') => new AppError(403, msg);
export const notFound = (msg: string) => new AppError(404, msg);
export const conflict = (msg: string, path?: string) => new AppError(409, msg, path);

/** PostgreSQL's SQLSTATE for a unique-constraint violation. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = findPgError(error);
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

interface PgErrorLike {
  code?: string;
  constraint?: string;
}

/** Drizzle wraps driver errors; the SQLSTATE sits on the error or on its cause. */
export function findPgError(error: unknown): PgErrorLike | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 3 && current && typeof current === 'object'; depth++) {
    const candidate = current as PgErrorLike & { cause?: unknown };
    if (typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code)) return candidate;
    current = candidate.cause;
  }
  return undefined;
}

/** The SQLSTATE of a database error, if it is one. */
export function sqlStateOf(error: unknown): string | undefined {
  return findPgError(error)?.code;
}

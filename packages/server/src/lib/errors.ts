/** Typed errors; the HTTP layer maps each to its status and `{detail}` in one place. */
export interface FieldError {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export class NotFound extends AppError {
  constructor(what: string, id?: string | number) {
    super(
      404,
      id === undefined ? `${capitalize(what)} not found` : `${capitalize(what)} ${id} not found`,
    );
  }
}
export class BadRequest extends AppError {
  constructor(message: string) {
    super(400, message);
  }
}
export class Unauthorized extends AppError {
  constructor(message = 'Not authenticated') {
    super(401, message);
  }
}
export class Forbidden extends AppError {
  constructor(message: string) {
    super(403, message);
  }
}
export class Conflict extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}
export class PayloadTooLarge extends AppError {
  constructor(message: string) {
    super(413, message);
  }
}
export class Unprocessable extends AppError {
  constructor(message: string, errors?: FieldError[]) {
    super(422, message, errors);
  }
}
export class TooManyRequests extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message, undefined, {
      'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    });
  }
}

/** A part the request needs is being repaired: the same request succeeds once it is. */
export class ServiceUnavailable extends AppError {
  constructor(message: string, retryAfterSeconds?: number) {
    super(
      503,
      message,
      undefined,
      retryAfterSeconds === undefined
        ? undefined
        : { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    );
  }
}

/** Turns zod issues into field errors and one readable sentence. */
export function fieldErrorsFromIssues(
  issues: ReadonlyArray<{
    path: ReadonlyArray<PropertyKey>;
    message: string;
    code?: string;
    keys?: string[];
  }>,
  prefix = '',
): FieldError[] {
  const out: FieldError[] = [];
  for (const i of issues) {
    const base = [prefix, ...i.path.map(String)].filter(Boolean).join('.');
    if (i.code === 'unrecognized_keys' && i.keys) {
      for (const k of i.keys)
        out.push({ field: [base, k].filter(Boolean).join('.'), message: 'is not a known field' });
    } else {
      out.push({ field: base || '(body)', message: i.message });
    }
  }
  return out;
}

export function describeFieldErrors(errors: FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}

import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { HubError, type ErrorCode } from '../../domain/errors.js';

/**
 * Errors raised by Express's body parsers (body-parser's `type` values) mapped to the hub's
 * errors (DESIGN.md: 400 malformed JSON, 413 over the limit, 415 unsupported encodings).
 */
function fromBodyParser(err: { type?: string; limit?: number }): HubError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new HubError('malformed_json', 'the body is not valid JSON');
    case 'entity.too.large':
      return new HubError('payload_too_large', `the body is larger than ${err.limit ?? 'the limit of'} bytes`);
    case 'parameters.too.many':
      return new HubError('payload_too_large', 'the form has too many fields');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new HubError('unsupported_media_type', 'send the body as UTF-8 without a content encoding');
    case 'request.aborted':
    case 'request.size.invalid':
      return new HubError('malformed_json', 'the body ended early or its length is wrong');
    default:
      return undefined;
  }
}

/** The catalogue's code for the 4xx statuses Express and its parsers raise on their own. */
const codeByStatus: Partial<Record<number, ErrorCode>> = {
  400: 'malformed_json',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/**
 * Client errors that Express raises with an http-errors `status` but no body-parser `type`:
 * the router's 400 `URIError` for a path parameter whose percent-encoding does not decode
 * (`/api/users/%E0%A4%A`), and body-parser's 400 for a body that does not decompress as its
 * `Content-Encoding` says (a zlib or brotli error). Without this they were answered 500.
 */
function fromHttpError(err: { status?: unknown; statusCode?: unknown; expose?: unknown; message?: unknown }): HubError | undefined {
  const status = typeof err.status === 'number' ? err.status : err.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (err instanceof URIError) {
    return new HubError('invalid_field', 'the URL path is not valid percent-encoded UTF-8 (RFC 3986 §2.1)');
  }
  const code = codeByStatus[status];
  if (!code) return undefined;
  const detail = err.expose === true && typeof err.message === 'string' ? `: ${err.message.slice(0, 200)}` : '';
  return new HubError(code, `the request body cannot be read${detail}`);
}

/**
 * Renders every error the same way: a {@link HubError} (or a body-parser error) as
 * `{"error":{"code","message","field"?}}` with its status and `Retry-After` where given; anything
 * else is logged and answered 500 `internal` without details.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    const hubError = err instanceof HubError ? err : (fromBodyParser(err ?? {}) ?? fromHttpError(err ?? {}));
    if (hubError) {
      if (hubError.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(hubError.retryAfterSeconds));
      res.status(hubError.status).json(hubError.toBody());
      return;
    }
    logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    res.status(500).json(new HubError('internal', 'internal error; see the hub log').toBody());
  };
}

/** 404 JSON for an /api or /v1 path no route matched. */
export const notFound: RequestHandler = (req) => {
  throw new HubError('not_found', `no such endpoint: ${req.method} ${req.path}`);
};

import http from 'node:http';
import fc from 'fast-check';
import { expect } from 'vitest';
import { errorCodes } from '../../server/domain/errors.js';

// Shared pieces of the property-based tests (issue 7, "Bad input"): a raw HTTP client that sends
// exactly the bytes and headers a test gives it, checks of the documented answers, and the
// awkward strings the properties are built from.

/** An answer as it came off the wire. */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** A request as the test wants it sent: headers as pairs (repeats allowed), body as bytes. */
export interface RawRequest {
  method: string;
  /**
   * Sent verbatim as the request target (no normalisation, no escaping). ASCII only: Node's HTTP
   * parser refuses other bytes in the request line with a bare 400 before the hub sees them.
   */
  path: string;
  headers?: Array<[string, string]>;
  body?: Buffer | string;
  /** Leave Content-Length out and send the body chunked. */
  chunked?: boolean;
}

/** How long one request may take before the property fails with "hang" (ms). */
export const REQUEST_TIMEOUT_MS = 10_000;

/**
 * A client for one hub: keep-alive connections, no redirects, no retries, no header or body
 * rewriting (unlike fetch, which normalises paths and refuses some headers).
 */
export function rawClient(baseUrl: string) {
  const { hostname, port } = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const send = (req: RawRequest): Promise<RawAnswer> =>
    new Promise((resolve, reject) => {
      const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
      const headers: Array<[string, string]> = [...(req.headers ?? [])];
      // Headers given as pairs are sent verbatim: Node adds no Host then, and HTTP/1.1 needs one.
      if (!headers.some(([k]) => k.toLowerCase() === 'host')) headers.unshift(['host', `${hostname}:${port}`]);
      if (body !== undefined && !req.chunked && !headers.some(([k]) => k.toLowerCase() === 'content-length')) {
        headers.push(['content-length', String(body.length)]);
      }
      const outgoing = http.request({
        host: hostname,
        port: Number(port),
        method: req.method,
        path: req.path,
        agent,
        // Pairs, so a test can repeat a header; Node sends them in order.
        headers: headers.flat(),
      });
      const timer = setTimeout(() => {
        outgoing.destroy(new Error(`hang: no answer to ${req.method} ${req.path.slice(0, 200)} within ${REQUEST_TIMEOUT_MS} ms`));
      }, REQUEST_TIMEOUT_MS);
      outgoing.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          const buf = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: buf, text: buf.toString('utf8') });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      });
      outgoing.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      if (body !== undefined) outgoing.end(body);
      else outgoing.end();
    });
  return { send, close: () => agent.destroy() };
}

/** Statuses the push operation documents (README "The push operation"). */
export const PUSH_STATUSES = [200, 400, 401, 413, 415, 429] as const;
/** Statuses the admin and receiver APIs answer with. */
export const API_STATUSES = [200, 201, 204, 400, 401, 403, 404, 409, 413, 415, 429] as const;

/**
 * Asserts the hub's error shape: JSON `{"error":{"code","message","field"?}}` and nothing else,
 * a code from server/domain/errors.ts whose status is the answer's, and `Retry-After` (whole
 * seconds, at least 1) on a 429. Returns the error.
 */
export function expectErrorBody(res: RawAnswer): { code: string; message: string; field?: string } {
  expect(res.headers['content-type'], res.text).toMatch(/^application\/json/);
  const parsed = JSON.parse(res.text) as unknown;
  expect(parsed).toBeTypeOf('object');
  expect(Object.keys(parsed as object)).toEqual(['error']);
  const error = (parsed as { error: Record<string, unknown> }).error;
  expect(error).toBeTypeOf('object');
  for (const key of Object.keys(error)) expect(['code', 'message', 'field']).toContain(key);
  expect(error.code).toBeTypeOf('string');
  expect(Object.keys(errorCodes)).toContain(error.code);
  expect(errorCodes[error.code as keyof typeof errorCodes], `${error.code} answered with ${res.status}`).toBe(res.status);
  expect(error.message).toBeTypeOf('string');
  expect((error.message as string).length).toBeGreaterThan(0);
  if ('field' in error) expect(error.field).toBeTypeOf('string');
  if (res.status === 429) {
    expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  }
  return error as { code: string; message: string; field?: string };
}

/**
 * Asserts one of the push operation's documented answers: 200 exactly `{"id": string}`, 401
 * with an empty body, every other documented status with the error shape. Returns the id of a
 * 200, else undefined.
 */
export function expectDocumentedPushAnswer(res: RawAnswer): string | undefined {
  expect(PUSH_STATUSES, `status ${res.status}: ${res.text.slice(0, 300)}`).toContain(res.status);
  if (res.status === 200) {
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const parsed = JSON.parse(res.text) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['id']);
    expect(parsed.id).toBeTypeOf('string');
    expect((parsed.id as string).length).toBeGreaterThan(0);
    return parsed.id as string;
  }
  if (res.status === 401) {
    expect(res.body.length, `401 with a body: ${res.text.slice(0, 300)}`).toBe(0);
    return undefined;
  }
  expectErrorBody(res);
  return undefined;
}

/**
 * Asserts an answer of the admin or receiver API: a documented status, never a 5xx; JSON on a
 * 200/201; the error shape on every 4xx; nothing on a 204.
 */
export function expectDocumentedApiAnswer(res: RawAnswer): void {
  expect(API_STATUSES, `status ${res.status}: ${res.text.slice(0, 300)}`).toContain(res.status);
  if (res.status === 204) {
    expect(res.body.length).toBe(0);
  } else if (res.status < 300) {
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    JSON.parse(res.text);
  } else {
    expectErrorBody(res);
  }
}

/** Strings that have broken parsers, databases and renderers before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\t\n\r',
  '\u00a0\u2028\u2029\ufeff', // whitespace that String.prototype.trim removes
  '\u200b', // zero-width space: not whitespace for trim
  '\u0000',
  'a\u0000b',
  '\u202eevil\u202c', // RTL override
  '\u200f\u05e9\u05dc\u05d5\u05dd', // RTL mark + Hebrew
  '\ud800', // lone high surrogate
  '\udc00', // lone low surrogate
  'x\udbff\udfffy', // U+10FFFF as a pair
  'a\ud83dz', // half an emoji
  '👨‍👩‍👧‍👦',
  '🏳️‍🌈',
  '🇩🇪🇫🇷',
  'e\u0301\u0301\u0301', // stacked combining marks
  '\ufffd',
  '%00',
  '%zz',
  '../../etc/passwd',
  '..%2F..%2F',
  '<script>alert(1)</script>',
  "'; DROP TABLE notifications; --",
  '{"a":1}',
  'null',
  '__proto__',
  'constructor',
  'toString',
  '\\u0000',
] as const;

/** Any string, with the awkward ones above weighted in. */
export const nastyString = (maxLength = 40): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength }) },
    // Lone surrogates and other UTF-16 code units that are not code points on their own.
    { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)), maxLength }) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.constantFrom(...NASTY_STRINGS, 'a', 'Z', '0', ' '), { maxLength: 8 })
        .map((parts) => parts.join('')),
    },
  );

/** A JSON value of any shape, strings included from {@link nastyString}. */
export const anyJson = (maxDepth = 3): fc.Arbitrary<unknown> =>
  fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth },
      fc.constant(null),
      fc.boolean(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      nastyString(),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(nastyString(12), tie('value'), { maxKeys: 4 }),
    ),
  })).value;

/** `depth` nested arrays or objects around `inner`, as JSON text (built as text: no stack). */
export function nestedJson(depth: number, kind: 'array' | 'object', inner = '1'): string {
  return kind === 'array' ? '['.repeat(depth) + inner + ']'.repeat(depth) : '{"a":'.repeat(depth) + inner + '}'.repeat(depth);
}

/** Well-formed version of a string: every lone surrogate becomes U+FFFD (what a UTF-8 round trip gives). */
export function wellFormed(s: string): string {
  return s.replace(/\p{Cs}/gu, '\ufffd');
}

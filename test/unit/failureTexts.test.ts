import { SseError } from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeProcessExit } from '../../src/process/serverProcess.js';
import { loadRemoteParts } from '../../src/sinks/remote/remoteSdk.js';
import { describeError, describeRemoteFailure } from '../../src/sinks/mcp/transports.js';

// An SSE error exists only once a remote connection loaded the SSE transport (decision 221).
beforeAll(() => loadRemoteParts());

/** undici's shape of a network failure: "fetch failed", the reason in `cause`. */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

function errno(message: string, code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

describe('describeRemoteFailure: a Streamable HTTP failure names the host and the cause, as the SSE one does', () => {
  it('a refused connection', () => {
    const error = fetchFailed(errno('connect ECONNREFUSED 127.0.0.1:4000', 'ECONNREFUSED'));
    expect(describeRemoteFailure(error, 'http://127.0.0.1:4000/mcp')).toBe('fetch failed: connect ECONNREFUSED 127.0.0.1:4000');
  });

  it('a host name that does not resolve', () => {
    const error = fetchFailed(errno('getaddrinfo ENOTFOUND nonexistent.invalid', 'ENOTFOUND'));
    expect(describeRemoteFailure(error, 'https://nonexistent.invalid/mcp')).toBe(
      'fetch failed: getaddrinfo ENOTFOUND nonexistent.invalid',
    );
  });

  it('a cause that does not name the host gets it, never the URL (user info, path and query may carry secrets)', () => {
    const error = fetchFailed(new TypeError('bad port'));
    expect(describeRemoteFailure(error, 'http://me:hunter2@127.0.0.1:9/mcp/sk-path-token?key=q')).toBe(
      'fetch failed: bad port (127.0.0.1:9)',
    );
  });

  it('a name with several addresses: every refused address (AggregateError has no message)', () => {
    const aggregate = Object.assign(
      new AggregateError([errno('connect ECONNREFUSED ::1:4000', 'ECONNREFUSED'), errno('connect ECONNREFUSED 127.0.0.1:4000', 'ECONNREFUSED')], ''),
      { code: 'ECONNREFUSED' },
    );
    expect(describeRemoteFailure(fetchFailed(aggregate), 'http://localhost:4000/mcp')).toBe(
      'fetch failed: connect ECONNREFUSED ::1:4000; connect ECONNREFUSED 127.0.0.1:4000 (localhost:4000)',
    );
  });

  it('an IPv6 host quoted without brackets counts as named', () => {
    const error = fetchFailed(errno('connect ECONNREFUSED ::1:4000', 'ECONNREFUSED'));
    expect(describeRemoteFailure(error, 'http://[::1]:4000/mcp')).toBe('fetch failed: connect ECONNREFUSED ::1:4000');
  });

  it('the SSE transport quotes its cause already: not repeated, the host added when missing', () => {
    const error = new SseError(undefined, 'TypeError: fetch failed: bad port', {} as never);
    error.cause = new TypeError('bad port');
    expect(describeRemoteFailure(error, 'http://127.0.0.1:9/sse')).toBe('SSE error: TypeError: fetch failed: bad port (127.0.0.1:9)');
  });

  it('an answer from the server is not a reachability failure: no host added', () => {
    expect(describeRemoteFailure(new Error('Error POSTing to endpoint (HTTP 500): bad request'), 'http://127.0.0.1:4000/mcp')).toBe(
      'Error POSTing to endpoint (HTTP 500): bad request',
    );
  });
});

describe('describeError', () => {
  it('keeps a plain message, follows causes, and names a cause by its code when it has no message', () => {
    expect(describeError(new Error('boom'))).toBe('boom');
    expect(describeError('a string')).toBe('a string');
    expect(describeError(new Error('outer', { cause: Object.assign(new Error(''), { code: 'EPIPE' }) }))).toBe('outer: EPIPE');
  });

  it('stops on a cycle of causes', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(describeError(a)).toBe('a: b');
  });
});

describe('describeProcessExit', () => {
  it('an exit code takes the last stderr line as its cause', () => {
    expect(describeProcessExit({ code: 1, signal: null }, 'Error: boom')).toBe('process exited with code 1: Error: boom');
    expect(describeProcessExit({ code: 0, signal: null }, undefined)).toBe('process exited with code 0');
  });

  it('a signal came from outside: the last stderr line is shown apart, not as its cause', () => {
    expect(describeProcessExit({ code: null, signal: 'SIGKILL' }, 'listening on stdio')).toBe(
      'process was killed by SIGKILL (last stderr: listening on stdio)',
    );
    expect(describeProcessExit({ code: null, signal: 'SIGTERM' }, undefined)).toBe('process was killed by SIGTERM');
  });

  it('an exit not seen yet', () => {
    expect(describeProcessExit(undefined, undefined)).toBe('process exited');
  });
});

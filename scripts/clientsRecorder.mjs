#!/usr/bin/env node
/**
 * `node clientsRecorder.mjs LOG COMMAND [ARGS…]`, for `npm run clients` (scripts/clients.mjs): runs
 * an MCP stdio server (there: `mcp-live serve --stdio`) and passes its stdin and stdout through
 * unchanged, appending one NDJSON line per JSON-RPC message to LOG — which session (this process),
 * when, which way, the method (or, for a response, only that it is one), and the protocol revision
 * a message names: the one an `initialize` asks for or its answer gives, the one a 2026-era request
 * carries in its `_meta`, the ones a `server/discover` answer lists. No other params or results are
 * written. It shows what a client asks for and when: whether it lists the tools again after a
 * `notifications/tools/list_changed`, and whether it comes back after its session ended.
 */
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const [log, command, ...args] = process.argv.slice(2);
const session = `${process.pid}`;
const record = (dir) => {
  let rest = '';
  return (chunk) => {
    rest += chunk.toString('utf8');
    const parts = rest.split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) {
      if (!line.trim()) continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        message = {};
      }
      const version = revisionOf(message);
      const entry = {
        session,
        t: Date.now(),
        dir,
        ...(message.method ? { method: message.method } : { response: message.id ?? null, ...(message.error ? { error: message.error.code } : {}) }),
        ...(version !== undefined ? { version } : {}),
      };
      appendFileSync(log, `${JSON.stringify(entry)}\n`);
    }
  };
};

/** The protocol revision(s) a message names, if any: a string, or a list for a discover answer. */
function revisionOf(message) {
  const text = (v) => (typeof v === 'string' ? v.slice(0, 20) : undefined);
  const fromMeta = text(message.params?._meta?.['io.modelcontextprotocol/protocolVersion']);
  if (fromMeta !== undefined) return fromMeta;
  if (message.method === 'initialize') return text(message.params?.protocolVersion);
  const result = message.result;
  if (result && typeof result === 'object') {
    if (Array.isArray(result.supportedVersions)) return result.supportedVersions.map(text).filter(Boolean).slice(0, 8);
    return text(result.protocolVersion);
  }
  return undefined;
}

appendFileSync(log, `${JSON.stringify({ session, t: Date.now(), dir: 'start' })}\n`);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const fromClient = record('client');
const fromServer = record('server');
process.stdin.on('data', (chunk) => {
  fromClient(chunk);
  child.stdin.write(chunk);
});
process.stdin.on('end', () => child.stdin.end());
child.stdout.on('data', (chunk) => {
  fromServer(chunk);
  process.stdout.write(chunk);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  appendFileSync(log, `${JSON.stringify({ session, t: Date.now(), dir: 'end', code, signal })}\n`);
  process.exit(code ?? 0);
});

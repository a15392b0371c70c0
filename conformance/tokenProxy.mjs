/**
 * The one thing `npm run conformance` puts between the suite's server scenarios and
 * `mcp-live serve`: a loopback port that forwards every request, byte for byte and streamed, to
 * the gateway's HTTP endpoint and adds `Authorization: Bearer <token>`. The suite's client cannot
 * send a header, and the gateway refuses any request without its token; this way the suite
 * meets the gateway exactly as users run it, with its authentication on, and mcp-live needs no
 * switch that turns authentication off.
 *
 * Host and Origin are kept as the client sent them, except that our own address becomes the
 * gateway's (the same loopback name, its port): a foreign Host or Origin (the DNS-rebinding
 * scenario's evil.example.com) reaches the gateway unchanged, and so does its refusal.
 */
import { createServer, request } from 'node:http';

/** Starts the proxy on 127.0.0.1 (any free port); resolves with its `url` (same path as `target`) and `close()`. */
export async function startTokenProxy(target, token) {
  const upstream = new URL(target);
  const server = createServer((req, res) => forward(req, res, upstream, token, ownPort()));
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const ownPort = () => server.address().port;
  return {
    url: `http://127.0.0.1:${ownPort()}${upstream.pathname}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function forward(req, res, upstream, token, ownPort) {
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  if (req.headers.host !== undefined) headers.host = retarget(`http://${req.headers.host}`, ownPort, upstream.port)?.host ?? req.headers.host;
  if (req.headers.origin !== undefined) headers.origin = retarget(req.headers.origin, ownPort, upstream.port)?.origin ?? req.headers.origin;
  const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    // An SSE stream may stay silent for a while: its client must see the headers now.
    res.flushHeaders();
    answer.pipe(res);
  });
  out.on('error', (error) => {
    if (res.headersSent) return void res.destroy();
    res.writeHead(502, { 'content-type': 'text/plain' }).end(`token proxy: the gateway did not answer: ${error.message}`);
  });
  // The client went away (a closed SSE stream, an ended session): so does the request upstream.
  res.on('close', () => out.destroy());
  req.pipe(out);
}

/** The URL moved to the gateway's port when it names this proxy on loopback; `undefined` for anything else. */
function retarget(value, ownPort, gatewayPort) {
  let url;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) || url.port !== String(ownPort)) return undefined;
  url.port = gatewayPort;
  return url;
}

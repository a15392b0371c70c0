/**
 * A stand-in for a model, for `npm run clients` (scripts/clients.mjs): a local HTTP server that
 * speaks just enough of the three APIs the clients use — Anthropic Messages (Claude Code), OpenAI
 * Chat Completions (Qwen Code) and the Gemini API (Gemini CLI) — to see what a client offers its
 * model, without a model and without a key. Each client is pointed at it by its own base-URL
 * setting; the stub never forwards anything anywhere.
 *
 * It records every request that offers the tools a caller is looking for (`offers`: the names
 * exactly as the client sends them, in its `tools` or — `mentioned` — in its prompt text, where
 * Claude Code and Qwen Code list the tools they defer), and lets the caller decide each answer:
 * `onTurn(turn)` resolves to the name of a tool to call, or to nothing for a plain text answer;
 * it may take its time (the client waits for its model meanwhile). Every other request (titles,
 * summaries, routing, quota probes) gets plain text at once.
 */
import { createServer } from 'node:http';

/**
 * @typedef {{ api: string, at: number, tools: string[], inText: string[], toolResult: string | undefined, called?: string }} Turn
 * @param {{ offers: (name: string) => boolean, mentioned?: RegExp, onTurn: (turn: Turn, index: number) => Promise<string | undefined> }} script
 *   `mentioned`: a global RegExp for names a client lists in its prompt text rather than as tools
 *   (matched against the request's decoded strings).
 * @returns {Promise<{ url: string, turns: Turn[], requests: number, close: () => Promise<void> }>}
 */
export async function startStubModel(script) {
  /** @type {Turn[]} */
  const turns = [];
  let requests = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      void answer(req, res, body).catch((error) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(error) } }));
      });
    });
  });

  async function answer(req, res, raw) {
    const url = new URL(req.url ?? '/', 'http://stub');
    let body;
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      body = {};
    }
    const api = url.pathname.includes('/messages') ? 'anthropic' : url.pathname.includes('/chat/completions') ? 'openai' : url.pathname.includes(':') ? 'gemini' : 'other';
    if (api === 'other') {
      // Model lists, token counts and the like: an empty success.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(url.pathname.endsWith('/models') ? '{"data":[],"models":[]}' : '{"input_tokens":1}');
      return;
    }
    if (api === 'anthropic' && url.pathname.endsWith('/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"input_tokens":1}');
      return;
    }
    const listed = toolNames(api, body);
    const text = script.mentioned ? strings(body).join('\n') : '';
    const inText = [...new Set(script.mentioned ? [...text.matchAll(script.mentioned)].map((m) => m[0]) : [])].filter((n) => !listed.includes(n));
    const tools = [...listed, ...inText];
    requests += 1;
    let call;
    if (tools.some(script.offers)) {
      /** @type {Turn} */
      const turn = { api, at: Date.now(), tools, inText, toolResult: toolResult(api, body) };
      turns.push(turn);
      call = await script.onTurn(turn, turns.length - 1);
      if (call !== undefined) turn.called = call;
    }
    reply(api, url, body, res, call);
  }

  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    turns,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}

/** Every string in a request body (its prompt text, decoded), for names a client lists in text. */
function strings(value) {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

/** The tool names a request offers, as the client named them. */
function toolNames(api, body) {
  if (api === 'anthropic') return (body.tools ?? []).map((t) => t.name).filter(Boolean);
  if (api === 'openai') return (body.tools ?? []).map((t) => t.function?.name ?? t.name).filter(Boolean);
  return (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name)).filter(Boolean);
}

/** The text of the last tool result a request carries back, if any (what the client got from its call). */
function toolResult(api, body) {
  const text = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
  // The latest one: a client may add messages of its own after it (Claude Code's reminders).
  if (api === 'anthropic') {
    const blocks = (body.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const block = blocks.filter((b) => b.type === 'tool_result').at(-1);
    return block ? text(block.content) : undefined;
  }
  if (api === 'openai') {
    const tool = (body.messages ?? []).filter((m) => m.role === 'tool').at(-1);
    return tool ? text(tool.content) : undefined;
  }
  const part = (body.contents ?? []).flatMap((c) => c.parts ?? []).filter((p) => p.functionResponse).at(-1);
  return part ? text(part.functionResponse.response) : undefined;
}

function reply(api, url, body, res, call) {
  // A request for JSON (Gemini CLI's model router, its loop check) gets an empty object.
  const wantsJson = body.generationConfig?.responseMimeType === 'application/json' || body.response_format?.type === 'json_object' || body.response_format?.type === 'json_schema';
  const text = wantsJson ? '{}' : 'done';
  if (api === 'anthropic') {
    const id = `msg_stub_${Date.now()}`;
    const content = call ? [{ type: 'tool_use', id: `toolu_stub_${Date.now()}`, name: call, input: {} }] : [{ type: 'text', text }];
    const usage = { input_tokens: 1, output_tokens: 1 };
    const stopReason = call ? 'tool_use' : 'end_turn';
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model: body.model ?? 'stub', content, stop_reason: stopReason, stop_sequence: null, usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
    send('message_start', { message: { id, type: 'message', role: 'assistant', model: body.model ?? 'stub', content: [], stop_reason: null, stop_sequence: null, usage } });
    if (call) {
      send('content_block_start', { index: 0, content_block: { ...content[0], input: {} } });
      send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{}' } });
    } else {
      send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
    }
    send('content_block_stop', { index: 0 });
    send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 1 } });
    send('message_stop', {});
    res.end();
    return;
  }
  if (api === 'openai') {
    const id = `chatcmpl-stub-${Date.now()}`;
    const toolCalls = call ? [{ index: 0, id: `call_stub_${Date.now()}`, type: 'function', function: { name: call, arguments: '{}' } }] : undefined;
    const finish = call ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const message = call ? { role: 'assistant', content: null, tool_calls: toolCalls.map(({ index: _, ...c }) => c) } : { role: 'assistant', content: text };
      res.end(JSON.stringify({ id, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model ?? 'stub', choices: [{ index: 0, message, finish_reason: finish }], usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta, finishReason = null, extra = {}) =>
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model ?? 'stub', choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`);
    chunk(call ? { role: 'assistant', content: null, tool_calls: toolCalls } : { role: 'assistant', content: text });
    chunk({}, finish, { usage });
    res.write('data: [DONE]\n\n');
    res.end();
    return;
  }
  // Gemini: generateContent, or streamGenerateContent (SSE with ?alt=sse).
  const parts = call ? [{ functionCall: { name: call, args: {} } }] : [{ text }];
  const chunk = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 }, modelVersion: 'stub' };
  if (url.pathname.includes(':streamGenerateContent')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(url.pathname.includes(':countTokens') ? { totalTokens: 1 } : chunk));
}

/**
 * The `Mcp-Param-*` headers of a 2026-07-28 `tools/call` over HTTP, checked against its body
 * (decision 374): a tool's input schema may name, with `x-mcp-header`, an argument a client
 * mirrors into a header so that a proxy can route on it without reading the body. A header
 * that disagrees with the body would route the call by a value the tool never sees, so it is
 * refused — as is a malformed Base64 value, and an argument the body carries that the header
 * left out. Pure: the caller answers the refusal (HTTP 400, `-32020`).
 */

/** One mirrored argument: its path in `arguments` and the header suffix. */
interface Mirrored {
  readonly path: readonly string[];
  readonly header: string;
}

const PRIMITIVE = new Set(['string', 'integer', 'number', 'boolean']);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const WRAPPED = /^=\?base64\?(.*)\?=$/s;

/** The `x-mcp-header` declarations of a tool's input schema, on the chain of `properties` only. */
export function mirroredArguments(inputSchema: unknown, path: readonly string[] = []): Mirrored[] {
  const properties = (inputSchema as { properties?: unknown } | null)?.properties;
  if (properties === null || typeof properties !== 'object') return [];
  const found: Mirrored[] = [];
  for (const [name, schema] of Object.entries(properties as Record<string, unknown>)) {
    if (schema === null || typeof schema !== 'object') continue;
    const header = (schema as Record<string, unknown>)['x-mcp-header'];
    const type = (schema as { type?: unknown }).type;
    if (typeof header === 'string' && header.length > 0 && typeof type === 'string' && PRIMITIVE.has(type)) found.push({ path: [...path, name], header });
    else found.push(...mirroredArguments(schema, [...path, name]));
  }
  return found;
}

/** Why the headers of a call disagree with its arguments, or undefined when they agree. */
export function paramHeaderMismatch(inputSchema: unknown, args: unknown, headerOf: (name: string) => string | undefined): string | undefined {
  for (const { path, header } of mirroredArguments(inputSchema)) {
    const value = path.reduce<unknown>((at, key) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), args);
    const name = `Mcp-Param-${header}`;
    const sent = headerOf(name);
    if (sent === undefined) {
      if (value === undefined || value === null) continue;
      return `the ${name} header is missing, but the body's argument ${path.join('.')} has a value`;
    }
    const decoded = decode(sent);
    if (decoded === undefined) return `the ${name} header is not valid Base64 inside =?base64?…?=`;
    if (!(typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') || decoded !== String(value)) return `the ${name} header does not match the body's argument ${path.join('.')}`;
  }
  return undefined;
}

/** A header value: Base64 inside `=?base64?…?=` (strict alphabet and padding), else the literal. */
function decode(value: string): string | undefined {
  const wrapped = WRAPPED.exec(value.trim());
  if (wrapped === null) return value.trim();
  const inner = wrapped[1]!;
  if (!BASE64.test(inner)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(inner), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

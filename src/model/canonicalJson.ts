/**
 * One JSON text per value, whatever order its object keys were written in: the common ground of
 * approval hashes, fingerprints and the reconcile gate's equality.
 */

/**
 * Serialises a JSON-like value with object keys sorted (recursively, by UTF-16 code unit) and
 * array order kept.
 *
 * It follows `JSON.stringify` for everything else: object members whose value is `undefined` or a
 * function are left out, such array items become `null`, non-finite numbers become `null`. A bare
 * `undefined` yields `"null"` so the result is always a string. Prototypes are ignored, so a
 * null-prototype map and a plain object with the same members serialise alike, and an own
 * `__proto__` key (as `JSON.parse` creates it) is kept like any other.
 */
export function canonicalJson(value: unknown): string {
  return serialise(value) ?? 'null';
}

/** `undefined` means "no JSON value here", which the caller drops (member) or turns into `null` (item). */
function serialise(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'function' || typeof value === 'symbol' || value === undefined) return undefined;
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item: unknown) => serialise(item) ?? 'null').join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const text = serialise(record[key]);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

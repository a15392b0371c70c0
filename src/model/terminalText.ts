/**
 * Untrusted text made safe for a terminal (decision 161): what a file, a server or a user wrote
 * reaches a person's screen as characters, never as effects. Every character that a terminal
 * acts on or that a reader cannot see is shown as a visible escape instead:
 *
 * - C0 controls and DEL (`\r`, `\t`, `\n` in a one-line value, `\x1b`, `\x07`, `\x7f` …), and C1
 *   controls (`\x80`–`\x9f`, among them the 8-bit CSI `\x9b`). An escape sequence of any kind —
 *   CSI, OSC (8 hyperlinks, 52 clipboard, 0 title), DCS, APC, PM, SOS — starts with ESC or a C1
 *   control and ends with one (BEL, ST = `ESC \`): with those shown as text, the rest of the
 *   sequence is plain printable characters, so no sequence needs parsing to be harmless.
 * - Unicode format characters (`Cf`: bidi embeddings, overrides and isolates `U+202A–202E`,
 *   `U+2066–2069`, zero-width `U+200B–200F`, `U+061C`, `U+FEFF`, soft hyphen, invisible tag
 *   characters `U+E0000–E007F` …), the line and paragraph separators `U+2028/2029`, and lone
 *   surrogates.
 *
 * Nothing is dropped: each such character becomes `\r`, `\n`, `\t`, `\xHH`, `\uHHHH` or
 * `\u{HHHHH}`. In a text that needed any escape, a literal backslash is doubled (decision 163),
 * so within it every single backslash starts an escape of ours; a text that needed none is
 * returned as it is, so `C:\x1b` typed literally reads the same as before — the "contains
 * control characters" marker ({@link hasUnsafeCharacters}) tells the two cases apart.
 */

/** What a terminal acts on or a reader cannot see; `\n` is allowed in a multi-line text only. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
/** The same, and the backslash, which is doubled beside an escape. */
const TO_ESCAPE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\\]/gu;
/** A line break of a multi-line text: CR LF moves nothing back over what was written. */
const LINE_BREAK = /\r?\n/;

export interface TerminalSafeOptions {
  /**
   * The text may have several lines (instructions, a description, an error): `\n` and `\r\n`
   * stay line breaks. Default false: a one-line value (an arg, a name, a review line), whose
   * `\n` is shown as `\n`, so it can never fake a line of its own.
   */
  multiline?: boolean;
  /** Put before each continuation line of a multi-line text, so it reads as part of the value (default none). */
  indent?: string;
}

/** `text` with every control, escape, bidi and invisible character shown as a visible escape. */
export function terminalSafe(text: string, { multiline = false, indent = '' }: TerminalSafeOptions = {}): string {
  if (!multiline) return UNSAFE.test(text) ? text.replace(TO_ESCAPE, escapeOf) : text;
  const lines = text.split(LINE_BREAK);
  const escaped = lines.some((line) => UNSAFE.test(line)) ? lines.map((line) => line.replace(TO_ESCAPE, escapeOf)) : lines;
  return escaped.join(`\n${indent}`);
}

/**
 * Whether {@link terminalSafe} has to escape anything in `text` (line breaks aside in a
 * multi-line text): the review marks such a value risky ("contains control characters").
 */
export function hasUnsafeCharacters(text: string, { multiline = false }: Pick<TerminalSafeOptions, 'multiline'> = {}): boolean {
  return multiline ? text.split(LINE_BREAK).some((line) => UNSAFE.test(line)) : UNSAFE.test(text);
}

const NAMED: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOf(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16);
  if (code <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${hex.padStart(4, '0')}` : `\\u{${hex}}`;
}

/** What the review says beside a value that {@link hasUnsafeCharacters} (the dialog, `plan`, `approvals`). */
export const UNSAFE_TEXT_NOTE = 'contains control characters, shown escaped';

/**
 * What JSON.stringify leaves raw and a terminal still acts on or hides: DEL and C1 controls (a
 * terminal may take a decoded U+009B for CSI), format characters (bidi, zero-width) and U+2028/9.
 * C0 controls are escaped by JSON.stringify itself, and a raw `\n` between tokens is layout.
 */
const JSON_UNSAFE = /[\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}]/u;
const JSON_UNSAFE_ALL = new RegExp(JSON_UNSAFE.source, 'gu');

/**
 * A JSON text (NDJSON, `--json`) that is still the same JSON value but safe to `tail` in a
 * terminal (decision 168): every character above written as its `\uXXXX` escape (a surrogate
 * pair for one beyond the BMP). Such characters can only stand inside a JSON string, where the
 * escape means the same character, so a parser reads exactly what it read before.
 */
export function terminalSafeJson(json: string): string {
  if (!JSON_UNSAFE.test(json)) return json;
  return json.replace(JSON_UNSAFE_ALL, (char) => Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''));
}

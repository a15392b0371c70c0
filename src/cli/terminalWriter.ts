import { terminalSafe, terminalSafeJson } from '../model/terminalText.js';

/**
 * The one way a human-readable printer of the CLI writes (decision 164): whatever it was given —
 * a table, review lines, a server's error — reaches the terminal with every control, escape and
 * bidi character shown as a visible escape, lines kept. Values are escaped where they are put in
 * a line (a table cell, a review value: `\n` shown too); this is the net under them, for every
 * text a printer did not build itself (errors, notices). `--json` output is not written here.
 */
export function terminalWriter(out: NodeJS.WritableStream): (text: string) => void {
  return (text) => void out.write(terminalSafe(text, { multiline: true }));
}

/** `value` as one JSON text and a newline, safe to read in a terminal (decision 168), through `replacer` (the secret net) when given. */
export function writeJson(out: NodeJS.WritableStream, value: unknown, replacer?: (key: string, value: unknown) => unknown, indent?: number): void {
  out.write(`${terminalSafeJson(JSON.stringify(value, replacer, indent))}\n`);
}

/**
 * A word as one POSIX shell word: as is when it is plain, else single-quoted (a `'` inside as
 * `'\''`). What a hint that names a command line (`mcp-live approvals approve NAME`) puts in
 * place of a name or a path, so the line copied from it runs as shown.
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_.@%+=:,/-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

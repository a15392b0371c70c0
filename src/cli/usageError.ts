/** A bad command line: the CLI prints the message and a pointer to --help, and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

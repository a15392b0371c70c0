import { createHash, randomBytes } from 'node:crypto';

/**
 * Where a local endpoint of mcp-live (the gateway's, decision 125) is reached, per platform
 * (decision 272). `base` is the endpoint's path without extension in the per-user runtime
 * directory, `<runtimeDir>/gateway-<profile>-<hash>`:
 *
 *   POSIX  <base>.sock                                  a unix socket file (0600, in the 0700 runtime dir)
 *   win32  \\.\pipe\mcp-live-<profile>-<hash of base>   a named pipe: the name its gateways share
 *            …-<32 hex>                                 the pipe one gateway listens on (see below)
 *
 * A unix socket path on Windows fails (`listen EACCES`): pipes live in one namespace per machine,
 * not in a directory, so nothing there is private to a user by its place. Hashing `base` puts the
 * user (the runtime directory is under their home), the profile and the workspace into the
 * name, as the socket's place holds them on POSIX.
 *
 * The pipe gets the default security descriptor (libuv passes none): full control for the
 * creator owner, LocalSystem and Administrators; read for Everyone and Anonymous. A read-only
 * client cannot send a request, and a gateway says nothing to a client before its `initialize`,
 * so no other user can use it. What the default cannot prevent is another user creating the
 * name first, while no gateway runs, and answering our relay. So each gateway listens on the
 * shared name plus a random suffix chosen when it starts, and writes that name into its record
 * in the runtime directory, which only the user can read: a relay connects only to the pipe the
 * record of a live gateway names. A squatter can learn a suffix (pipe names can be listed) only
 * once its gateway listens, and a pipe that exists cannot get a second server without the
 * owner's FILE_CREATE_PIPE_INSTANCE right.
 */

/** sun_path holds 108 bytes on Linux, 104 on macOS (with the terminating NUL). */
const MAX_SOCKET_PATH = 103;

const PIPE_PREFIX = '\\\\.\\pipe\\';
const SUFFIX = /^-[0-9a-f]{32}$/;

/** The socket path (POSIX) or the shared pipe name (win32) of the endpoint at `base`. */
export function localEndpoint(base: string, profile: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') {
    const hash = createHash('sha256').update(base).digest('hex').slice(0, 16);
    return `${PIPE_PREFIX}mcp-live-${profile}-${hash}`;
  }
  const socket = `${base}.sock`;
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
    throw new Error(
      `the gateway's socket path is too long for the system (${socket}); ` +
        'set XDG_RUNTIME_DIR to a short directory of yours, or use a shorter home directory',
    );
  }
  return socket;
}

/** Whether endpoints on `platform` are named pipes (no file: no mode, nothing to unlink). */
export function usesNamedPipes(platform: NodeJS.Platform = process.platform): boolean {
  return platform === 'win32';
}

/** A fresh pipe name for one gateway: the shared name and a random suffix. */
export function listeningPipe(endpoint: string): string {
  return `${endpoint}-${randomBytes(16).toString('hex')}`;
}

/** Whether `pipe` (from a record) is a listening pipe of `endpoint`, and nothing else. */
export function isListeningPipeOf(endpoint: string, pipe: string): boolean {
  return pipe.startsWith(endpoint) && SUFFIX.test(pipe.slice(endpoint.length));
}

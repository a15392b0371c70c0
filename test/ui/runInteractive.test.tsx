import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { runInteractive } from '../../src/cli/runInteractive.js';
import { fakeLive, KEY, plain, server } from './fakeLive.js';

/** Just enough of a TTY for Ink: raw mode, `readable` + `read()`. */
class FakeTtyIn extends EventEmitter {
  isTTY = true;
  private queue: string[] = [];
  setRawMode() {
    return this;
  }
  setEncoding() {
    return this;
  }
  resume() {
    return this;
  }
  pause() {
    return this;
  }
  ref() {
    return this;
  }
  unref() {
    return this;
  }
  read() {
    return this.queue.shift() ?? null;
  }
  type(data: string) {
    this.queue.push(data);
    this.emit('readable');
  }
}

class FakeOut extends EventEmitter {
  columns = 100;
  rows = 40;
  written = '';
  write(chunk: string) {
    this.written += chunk;
    return true;
  }
}

function io(isTTY = true) {
  const stdin = new FakeTtyIn();
  stdin.isTTY = isTTY;
  const stdout = new FakeOut();
  const stderr = new FakeOut();
  return {
    stdin,
    stdout,
    stderr,
    streams: {
      stdin: stdin as unknown as NodeJS.ReadStream,
      stdout: stdout as unknown as NodeJS.WriteStream,
      stderr: stderr as unknown as NodeJS.WriteStream,
    },
  };
}

describe('runInteractive', () => {
  it.each([
    ['Ctrl-C', (t: ReturnType<typeof io>) => t.stdin.type(KEY.ctrlC)],
    ['/quit', (t: ReturnType<typeof io>) => t.stdin.type(`/quit${KEY.enter}`)],
    ['SIGTERM', () => void process.emit('SIGTERM')],
    ['SIGHUP (the terminal closed)', () => void process.emit('SIGHUP')],
  ])('renders, starts, and on %s unmounts, disposes and resolves 0', async (_name, end) => {
    const fake = fakeLive({ servers: [server('alpha')] });
    const t = io();
    const done = runInteractive(fake.live, { ...t.streams, patchConsole: false });
    await vi.waitFor(() => expect(plain(t.stdout.written)).toContain('● alpha'));
    expect(fake.calls.map((c) => c.method)).toEqual(['start']);
    end(t);
    await expect(done).resolves.toBe(0);
    expect(fake.calls.map((c) => c.method)).toEqual(['start', 'dispose']);
    expect(process.listenerCount('SIGTERM')).toBe(0);
    expect(process.listenerCount('SIGINT')).toBe(0);
    expect(process.listenerCount('SIGHUP')).toBe(0);
  });

  it('refuses to run without a terminal, disposing the session', async () => {
    const fake = fakeLive();
    const t = io(false);
    await expect(runInteractive(fake.live, { ...t.streams, patchConsole: false })).resolves.toBe(1);
    expect(t.stderr.written).toContain('needs a terminal; use --json');
    expect(fake.calls.map((c) => c.method)).toEqual(['dispose']);
  });

  it('ends with 1 and the message when the session cannot start', async () => {
    const fake = fakeLive();
    fake.live.start = () => Promise.reject(new Error('cannot watch /nope'));
    const t = io();
    await expect(runInteractive(fake.live, { ...t.streams, patchConsole: false })).resolves.toBe(1);
    expect(t.stderr.written).toContain('mcp-live: cannot watch /nope');
    expect(fake.calls.map((c) => c.method)).toEqual(['dispose']);
  });
});

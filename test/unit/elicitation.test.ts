import { describe, expect, it } from 'vitest';
import type { ElicitationSchema } from '../../src/model/connection.js';
import { checkAnswer, formDefaults, missingRequired, parseFieldText } from '../../src/model/elicitationForm.js';
import { createElicitationQueue, type PendingElicitation } from '../../src/sinks/mcp/elicitationQueue.js';

const schema: ElicitationSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'integer', default: 30 },
    tags: { type: 'array', items: { type: 'string' }, default: ['a'] },
    broken: { type: 'string', default: { not: 'a value' } },
  },
  required: ['name', 'age'],
};

describe('elicitation forms', () => {
  it('starts from the defaults that are field values, and knows what a required field still lacks', () => {
    expect(formDefaults(schema)).toEqual({ age: 30, tags: ['a'] });
    expect(missingRequired(schema, {})).toEqual(['name']);
    expect(missingRequired(schema, { name: '' })).toEqual(['name']);
    expect(missingRequired(schema, { name: 'Ada' })).toEqual([]);
  });

  it('reads typed text as the field\'s kind, or says what it should be', () => {
    expect(parseFieldText({ type: 'integer' }, ' 42 ')).toBe(42);
    expect(parseFieldText({ type: 'integer' }, '4.5')).toEqual({ error: 'a whole number' });
    expect(parseFieldText({ type: 'number' }, '4.5')).toBe(4.5);
    expect(parseFieldText({ type: 'number' }, '')).toEqual({ error: 'a number' });
    expect(parseFieldText({ type: 'boolean' }, 'Yes')).toBe(true);
    expect(parseFieldText({ type: 'boolean' }, 'maybe')).toEqual({ error: 'true or false' });
    expect(parseFieldText({ type: 'array' }, 'a, b')).toEqual(['a', 'b']);
    expect(parseFieldText({ type: 'string' }, ' keep spaces ')).toBe(' keep spaces ');
  });

  it('checks an answer\'s action and content', () => {
    expect(checkAnswer({ action: 'decline', content: { ignored: true } })).toEqual({ action: 'decline' });
    expect(checkAnswer({ action: 'accept' })).toEqual({ action: 'accept' });
    expect(() => checkAnswer({ action: 'yes' })).toThrow('"action" must be "accept", "decline" or "cancel" (got "yes")');
    expect(() => checkAnswer({ action: 'accept', content: [] })).toThrow('"content" must be a JSON object');
    expect(() => checkAnswer({ action: 'accept', content: { x: { y: 1 } } })).toThrow('field "x" must be a string');
  });
});

describe('createElicitationQueue', () => {
  const form = { message: 'Who?', requestedSchema: schema };

  it('lists a form until it is answered, with an id per form, and resolves the server\'s request with the answer', async () => {
    const asked: PendingElicitation[] = [];
    const queue = createElicitationQueue({ onAsked: (r) => asked.push(r) });
    const seen: (readonly PendingElicitation[])[] = [];
    const sub = queue.pending$.subscribe((p) => seen.push(p));
    const answer = queue.ask('srv', form, { signal: new AbortController().signal, timeoutMs: 1000 });
    const other = queue.ask('srv', form, { signal: new AbortController().signal, timeoutMs: 1000 });
    expect(asked.map((r) => r.id)).toEqual(['elicit-1', 'elicit-2']);
    expect(() => queue.answer('elicit-1', { action: 'accept', content: {} })).toThrow('required: name (the form still waits)');
    queue.answer('elicit-1', { action: 'accept', content: { name: 'Ada' } });
    await expect(answer).resolves.toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(() => queue.answer('elicit-1', { action: 'cancel' })).toThrow('no form "elicit-1" is waiting');
    expect(seen.map((p) => p.map((r) => r.id))).toEqual([[], ['elicit-1'], ['elicit-1', 'elicit-2'], ['elicit-2']]);
    queue.dispose();
    await expect(other).resolves.toEqual({ action: 'cancel' });
    sub.unsubscribe();
  });

  it('a form whose signal aborts leaves the list as a cancel, and says why once', async () => {
    const gone: unknown[] = [];
    const queue = createElicitationQueue({ onGone: (r, reason) => gone.push([r.id, (reason as Error).message]) });
    const abort = new AbortController();
    const answer = queue.ask('srv', form, { signal: abort.signal, timeoutMs: 10 });
    abort.abort(new Error('not answered within 10 ms'));
    await expect(answer).resolves.toEqual({ action: 'cancel' });
    expect(gone).toEqual([['elicit-1', 'not answered within 10 ms']]);
    const already = new AbortController();
    already.abort();
    await expect(queue.ask('srv', form, { signal: already.signal, timeoutMs: 10 })).resolves.toEqual({ action: 'cancel' });
    queue.dispose();
  });
});

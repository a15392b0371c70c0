import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { PendingElicitation } from '../../src/live/types.js';
import { App } from '../../src/hosts/ui/App.js';
import { fakeLive, KEY, pendingApproval, plain, tick, waitFor } from './fakeLive.js';

afterEach(cleanup);

function session(init: Parameters<typeof fakeLive>[0] = {}) {
  const fake = fakeLive(init);
  const ui = render(<App live={fake.live} onExit={() => undefined} />);
  const frame = () => plain(ui.lastFrame());
  return { ...fake, ...ui, frame };
}

/** server-everything's kind of form: a required name, a number with a default, an enum, a boolean. */
const form = (id = 'elicit-1'): PendingElicitation => ({
  id,
  server: 'every',
  message: 'Please provide inputs for the following fields:',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name', description: 'Your full name' },
      age: { type: 'integer', default: 30 },
      status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
      verified: { type: 'boolean' },
    },
    required: ['name'],
  },
});

/** Sends keys one at a time, as a person types them, letting each render. */
async function press(s: ReturnType<typeof session>, ...keys: string[]) {
  for (const key of keys) {
    s.stdin.write(key);
    await tick(20);
  }
}

describe('ElicitationDialog', () => {
  it('shows the form with its fields, required marks and defaults, and takes the keys from the command line', async () => {
    const s = session();
    s.elicitations.next([form()]);
    await waitFor(() => expect(s.frame()).toContain('MCP server “every” asks'));
    const frame = s.frame();
    expect(frame).toContain('Please provide inputs for the following fields:');
    expect(frame).toMatch(/› Name\*\s+▏\s+string · Your full name/);
    expect(frame).toMatch(/age\s+30\s+integer/);
    expect(frame).toMatch(/status\s+active\s+one of active, inactive, pending/);
    expect(frame).toMatch(/verified\s+true\/false/);
    for (const action of ['1. Accept', '2. Decline', '3. Cancel']) expect(frame).toContain(action);
    expect(frame).toContain('the form has the keys');
  });

  it('typed values, choices stepped with →, and Accept send the content read as each field\'s kind', async () => {
    const s = session();
    s.elicitations.next([form()]);
    await waitFor(() => expect(s.frame()).toContain('asks'));
    await press(s, 'A', 'd', 'a', KEY.enter); // name, then on to age
    await press(s, KEY.backspace, KEY.backspace, '4', '1', KEY.down); // age 41
    await press(s, KEY.right, KEY.down); // status: inactive
    await press(s, KEY.right, KEY.enter); // verified: true, on to Accept
    await waitFor(() => expect(s.frame()).toMatch(/› 1\. Accept/));
    await press(s, KEY.enter);
    expect(s.callsOf('elicitation.answer')).toEqual([
      ['elicit-1', { action: 'accept', content: { name: 'Ada', age: 41, status: 'inactive', verified: true } }],
    ]);
    await waitFor(() => expect(s.frame()).not.toContain('asks'));
  });

  it('a value of the wrong kind is shown in red and nothing is sent', async () => {
    const s = session();
    s.elicitations.next([form()]);
    await waitFor(() => expect(s.frame()).toContain('asks'));
    await press(s, KEY.down, 'x'); // age "30x"
    await press(s, KEY.down, KEY.down, KEY.down); // past status and verified to Accept
    await waitFor(() => expect(s.frame()).toContain('› 1. Accept'));
    await press(s, KEY.enter);
    await waitFor(() => expect(s.frame()).toContain('✖ age: expected a number'));
    expect(s.callsOf('elicitation.answer')).toEqual([]);
  });

  it('Esc cancels, Decline declines; the next form follows the answered one, starting from its own defaults', async () => {
    const s = session();
    s.elicitations.next([form('elicit-1'), form('elicit-2')]);
    await waitFor(() => expect(s.frame()).toContain('(1 of 2)'));
    await press(s, 'Z');
    await press(s, KEY.escape);
    await waitFor(() => expect(s.frame()).not.toContain('(1 of 2)'));
    expect(s.frame()).toMatch(/› Name\*\s+▏/);
    await press(s, KEY.up, KEY.up, KEY.enter); // Decline
    expect(s.callsOf('elicitation.answer')).toEqual([
      ['elicit-1', { action: 'cancel' }],
      ['elicit-2', { action: 'decline' }],
    ]);
  });

  it('comes before the approval dialog, which shows once the form is answered', async () => {
    const s = session({ pending: [pendingApproval('beta')] });
    await waitFor(() => expect(s.frame()).toContain('Approve MCP server “beta”?'));
    s.elicitations.next([form()]);
    await waitFor(() => expect(s.frame()).toContain('asks'));
    expect(s.frame()).not.toContain('Approve MCP server');
    await press(s, KEY.escape);
    await waitFor(() => expect(s.frame()).toContain('Approve MCP server “beta”?'));
    await tick();
    expect(s.callsOf('approvals.approve')).toEqual([]);
  });
});

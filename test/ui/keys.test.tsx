import { Text } from 'ink';
import { render, cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyRouter, useKeys } from '../../src/hosts/ui/kit/keys.js';
import { tick } from './fakeLive.js';

afterEach(cleanup);

function Taker({ name, priority, takes, log, isActive }: { name: string; priority: number; takes: string; log: string[]; isActive?: boolean }) {
  useKeys((input) => {
    log.push(`${name}:${input}`);
    return takes.includes(input);
  }, { priority, isActive });
  return <Text>{name}</Text>;
}

describe('KeyRouter', () => {
  it('asks active handlers by priority until one takes the key', async () => {
    const log: string[] = [];
    const { stdin } = render(
      <KeyRouter>
        <Taker name="low" priority={1} takes="xy" log={log} />
        <Taker name="high" priority={9} takes="x" log={log} />
        <Taker name="off" priority={99} takes="xyz" log={log} isActive={false} />
      </KeyRouter>,
    );
    await tick();
    stdin.write('x');
    await tick(10);
    stdin.write('y');
    await tick(10);
    stdin.write('z');
    await tick(10);
    expect(log).toEqual(['high:x', 'high:y', 'low:y', 'high:z', 'low:z']);
  });

  it('works without a router, listening by itself', async () => {
    const log: string[] = [];
    const { stdin } = render(<Taker name="solo" priority={1} takes="" log={log} />);
    await tick();
    stdin.write('q');
    await tick(10);
    expect(log).toEqual(['solo:q']);
  });
});

import { describe, expect, it } from 'vitest';
import { share } from '../../src/hosts/ui/kit/rowBudget.js';

describe('share (the rows of a full screen)', () => {
  it('serves the claims in order, each what it needs of what is left', () => {
    expect(share({ dialog: 52, body: 14, log: 3 }, 19, [{ id: 'dialog' }, { id: 'body' }, { id: 'log', upTo: 4 }])).toEqual({
      dialog: 19,
      body: 0,
      log: 0,
    });
    expect(share({ output: 26, body: 35, log: 3 }, 18, [{ id: 'log', upTo: 2 }, { id: 'output' }, { id: 'body' }, { id: 'log', upTo: 4 }])).toEqual({
      log: 2,
      output: 16,
      body: 0,
    });
  });

  it('gives everything when it fits, and a region claimed twice up to its second limit in all', () => {
    expect(share({ body: 5, log: 8 }, 40, [{ id: 'log', upTo: 2 }, { id: 'body' }, { id: 'log', upTo: 4 }])).toEqual({ log: 4, body: 5 });
  });

  it('skips regions that are not there, and never gives a negative count', () => {
    expect(share({ body: 5 }, -3, [{ id: 'dialog' }, { id: 'body' }])).toEqual({ body: 0 });
  });
});

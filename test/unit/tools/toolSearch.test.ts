import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createToolIndex,
  joinedPairs,
  queryTerms,
  searchLimit,
  searchTools,
  stem,
  terms,
  tokenize,
  type SearchableTool,
} from '../../../src/model/tools/toolSearch.js';

/** Decision 215: the words, the stems and the ranking of tool search. */

const tool = (server: string, own: string, description?: string): SearchableTool => ({
  name: `mcp__${server}__${own}`,
  server,
  tool: own,
  ...(description === undefined ? {} : { description }),
});

const CATALOG: readonly SearchableTool[] = [
  tool('github', 'create_issue', 'Creates a new issue in a GitHub repository.'),
  tool('github', 'list_issues', 'Lists the issues of a repository.'),
  tool('jira', 'create_issue', 'Creates a Jira issue in a project.'),
  tool('slack', 'post_message', 'Posts a message to a channel.'),
  tool('fs', 'delete_directory', 'Deletes a directory and everything in it.'),
  tool('fs', 'read_file', 'Reads a file as text.'),
  tool('fs', 'remove_file', 'Removes a file.'),
];

const names = (query: string, tools: readonly SearchableTool[] = CATALOG, limit?: number): string[] =>
  createToolIndex(tools)
    .search(query, limit === undefined ? {} : { limit })
    .map((m) => m.name);

describe('tokenize', () => {
  it('splits at separators, camelCase humps and letter/digit boundaries, lower-cased; a split word is also kept whole', () => {
    expect(tokenize('getUserById HTTPServer oauth2 mcp__github__create_issue a-b.c/d e')).toEqual([
      'get', 'user', 'by', 'id', 'getuserbyid',
      'http', 'server', 'httpserver',
      'oauth', '2', 'oauth2',
      'mcp', 'github', 'create', 'issue',
      'a', 'b', 'c', 'd', 'e',
    ]);
  });

  it('reads letters and digits of any script; everything else separates', () => {
    expect(tokenize('Crée un ticket — 東京 «urgent», s3://bucket')).toEqual(['crée', 'un', 'ticket', '東京', 'urgent', 's', '3', 's3', 'bucket']);
    expect(tokenize('')).toEqual([]);
    expect(tokenize(' _-./ ')).toEqual([]);
  });
});

describe('stem', () => {
  it.each([
    // The forms of one verb meet.
    ['create', 'creat'], ['creates', 'creat'], ['created', 'creat'], ['creating', 'creat'], ['creation', 'creat'],
    ['delete', 'delet'], ['deletion', 'delet'],
    // -ies/-ied and -y.
    ['query', 'quer'], ['queries', 'quer'], ['copy', 'cop'], ['copied', 'cop'], ['expiry', 'expir'], ['expire', 'expir'],
    // -es after a sibilant, else -s; not after s, u, i.
    ['boxes', 'box'], ['branches', 'branch'], ['statuses', 'status'], ['status', 'status'], ['class', 'class'], ['analysis', 'analysis'],
    ['issues', 'issu'], ['issue', 'issu'], ['files', 'fil'], ['tools', 'tool'],
    // -ing/-ed, undoubled; not -eed; `adding` keeps its d.
    ['running', 'run'], ['stopping', 'stop'], ['committed', 'commit'], ['adding', 'add'], ['need', 'need'],
    // -ly where four letters stay; -ion after t or s.
    ['weekly', 'week'], ['apply', 'appl'], ['permission', 'permiss'],
    // Left alone: short words, and stems without a vowel or under three letters.
    ['string', 'string'], ['used', 'used'], ['run', 'run'], ['s3', 's3'],
  ])('%s → %s', (word, stemmed) => {
    expect(stem(word)).toBe(stemmed);
  });
});

describe('terms, joinedPairs, queryTerms', () => {
  it('terms: words without stop words, stemmed', () => {
    expect(terms('Lists the open pull requests of a GitHub repository')).toEqual(['list', 'open', 'pull', 'request', 'git', 'hub', 'github', 'repositor']);
    expect(terms('what do I want to use for this')).toEqual([]);
  });

  it('joinedPairs: each two neighbouring words as one term', () => {
    expect(joinedPairs('get_stack_trace')).toEqual(['getstack', 'stacktrac']);
    expect(joinedPairs('show the process list')).toEqual(['showprocess', 'processlist']);
    expect(joinedPairs('alone')).toEqual([]);
  });

  it('queryTerms: own words at 1, related words and joined pairs at 0.7, own words never lowered', () => {
    expect([...queryTerms('remove a folder')]).toEqual([
      ['remov', 1], ['folder', 1],
      ['delet', 0.7], ['eras', 0.7], ['destroy', 0.7], ['drop', 0.7], ['director', 0.7], ['dir', 0.7],
      ['removefolder', 0.7],
    ]);
    // "delete" is its own word here, though related to "remove".
    expect(queryTerms('remove or delete').get('delet')).toBe(1);
  });

  it('reads at most 1,000 characters and 32 distinct terms of a query', () => {
    expect(queryTerms(`${'x '.repeat(500)}github`).has('github')).toBe(false);
    expect(queryTerms(`${'x '.repeat(497)}github`).has('github')).toBe(true);
    const words = Array.from({ length: 40 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
    const own = [...queryTerms(words.join(' '))].filter(([, weight]) => weight === 1);
    expect(own).toHaveLength(32);
  });
});

describe('createToolIndex: ranking', () => {
  it('the tool matching most, and most specifically, comes first', () => {
    expect(names('create an issue on github')).toEqual(['mcp__github__create_issue', 'mcp__jira__create_issue', 'mcp__github__list_issues']);
    expect(names('send a message to a channel')).toEqual(['mcp__slack__post_message']);
  });

  it('related words find a tool in other words, below a tool that uses the query\'s own', () => {
    expect(names('open a jira ticket')[0]).toBe('mcp__jira__create_issue');
    expect(names('remove a folder')).toEqual(['mcp__fs__delete_directory', 'mcp__fs__remove_file']);
    expect(names('remove a file')).toEqual(['mcp__fs__remove_file', 'mcp__fs__delete_directory', 'mcp__fs__read_file']);
  });

  it('a query that is a tool\'s name, exposed or own, finds it first even when none of its words is a term', () => {
    const withDoIt = [...CATALOG, tool('misc', 'do_it'), tool('misc', 'it_does', 'Does it')];
    expect(names('do_it', withDoIt)).toEqual(['mcp__misc__do_it']);
    // Its exposed name, any case; the server's word finds the server's other tool after it.
    expect(names('MCP__MISC__DO_IT', withDoIt)).toEqual(['mcp__misc__do_it', 'mcp__misc__it_does']);
    expect(names('LIST_ISSUES')[0]).toBe('mcp__github__list_issues');
  });

  it('equal scores are ordered by name, whatever the catalog\'s order', () => {
    const twins = [tool('beta', 'ping', 'Checks it is up'), tool('alpha', 'ping', 'Checks it is up')];
    const found = createToolIndex(twins).search('ping');
    expect(found.map((m) => m.name)).toEqual(['mcp__alpha__ping', 'mcp__beta__ping']);
    expect(found[0]!.score).toBe(found[1]!.score);
  });

  it('a match carries name, server, description and input schema as given, and its score', () => {
    const schema = { type: 'object', properties: { text: { type: 'string' } } };
    const [found] = createToolIndex([{ ...tool('echo', 'echo', 'Returns its text'), inputSchema: schema }]).search('return the text');
    expect(found).toEqual({ name: 'mcp__echo__echo', server: 'echo', description: 'Returns its text', inputSchema: schema, score: expect.any(Number) as number });
    expect(found!.score).toBeGreaterThan(0);
    expect(createToolIndex([tool('bare', 'ping')]).search('ping')).toEqual([{ name: 'mcp__bare__ping', server: 'bare', score: expect.any(Number) as number }]);
  });

  it('the input schema\'s property names and descriptions are searched too', () => {
    const tools = [
      { ...tool('shop', 'fulfill_order', 'Marks an order as shipped.'), inputSchema: { type: 'object', properties: { tracking_number: { type: 'string', description: 'The carrier code' } } } },
      tool('shop', 'cancel_order', 'Cancels an order.'),
    ];
    expect(names('order tracking', tools)).toEqual(['mcp__shop__fulfill_order', 'mcp__shop__cancel_order']);
    expect(names('carrier', tools)).toEqual(['mcp__shop__fulfill_order']);
  });

  it('nothing for no match, stop words only, a blank query or an empty catalog', () => {
    expect(names('zebra')).toEqual([]);
    expect(names('the of and')).toEqual([]);
    expect(names('   ')).toEqual([]);
    expect(names('issue', [])).toEqual([]);
    expect(createToolIndex([]).size).toBe(0);
  });
});

describe('limits', () => {
  const many = Array.from({ length: 80 }, (_, i) => tool('many', `tool_${String(i).padStart(2, '0')}`, 'Does a thing'));

  it('default 5, at most 50, at least 1, whole numbers', () => {
    expect(names('thing', many)).toHaveLength(5);
    expect(names('thing', many, 1_000)).toHaveLength(50);
    expect(names('thing', many, 0)).toHaveLength(1);
    expect(names('thing', many, 2.9)).toHaveLength(2);
    expect(searchLimit(Number.NaN)).toBe(5);
    expect(searchLimit(undefined)).toBe(5);
    expect(searchLimit(Number.POSITIVE_INFINITY)).toBe(5);
    expect(searchLimit(-3)).toBe(1);
  });
});

describe('searchTools', () => {
  it('keeps the index while the array is the same one: a changed catalog comes as a new array', () => {
    const tools = [tool('a1', 'alpha', 'First')];
    expect(searchTools(tools, 'alpha').map((m) => m.name)).toEqual(['mcp__a1__alpha']);
    // The cached index does not see a tool pushed into the same array …
    tools.push(tool('b1', 'beta', 'Second'));
    expect(searchTools(tools, 'beta')).toEqual([]);
    // … a new array is indexed anew.
    expect(searchTools([...tools], 'beta').map((m) => m.name)).toEqual(['mcp__b1__beta']);
  });
});

describe('properties', () => {
  const vocabulary = ['create', 'list', 'issue', 'issues', 'repo', 'file', 'files', 'delete', 'message', 'send', 'github', 'jira', 'the', 'a', 'run', 'query'];
  const words = fc.array(fc.constantFrom(...vocabulary), { minLength: 0, maxLength: 6 }).map((w) => w.join(' '));
  const catalog = fc.uniqueArray(
    fc.record({ server: fc.constantFrom('github', 'jira', 'fs', 'db'), own: fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 3 }).map((w) => w.join('_')), description: words }),
    { selector: (t) => `${t.server}/${t.own}`, maxLength: 25 },
  ).map((ts) => ts.map((t) => tool(t.server, t.own, t.description)));

  it('at most `limit` matches, best first, ties by name; the same for the catalog in any order', () => {
    fc.assert(
      fc.property(catalog, words, fc.integer({ min: 1, max: 10 }), fc.func(fc.integer()), (tools, query, limit, order) => {
        const found = createToolIndex(tools).search(query, { limit });
        expect(found.length).toBeLessThanOrEqual(limit);
        const exact = (name: string): boolean =>
          tools.some((t) => t.name === name && [t.name.toLowerCase(), t.tool.toLowerCase()].includes(query.trim().toLowerCase()));
        for (let i = 1; i < found.length; i++) {
          const [a, b] = [found[i - 1]!, found[i]!];
          const ordered = exact(a.name) === exact(b.name) ? a.score > b.score || (a.score === b.score && a.name < b.name) : exact(a.name);
          expect(ordered).toBe(true);
        }
        const shuffled = [...tools].sort((x, y) => order(x.name) - order(y.name));
        expect(createToolIndex(shuffled).search(query, { limit })).toEqual(found);
      }),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createToolIndex,
  joinedPairs,
  MAX_DESCRIPTION_CHARS,
  queryGroups,
  queryTerms,
  readableText,
  searchLimit,
  searchTools,
  stem,
  terms,
  tokenize,
  type SearchableTool,
  type ToolIndex,
} from '../../../src/model/tools/toolSearch.js';

/** Decisions 215 and 312: the words, the stems and the ranking of tool search, and what a server cannot game in it. */

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
  it('the tool matching most, and most specifically, comes first; the tools of a server the query names before others', () => {
    expect(names('create an issue on github')).toEqual(['mcp__github__create_issue', 'mcp__github__list_issues', 'mcp__jira__create_issue']);
    expect(names('create an issue')).toEqual(['mcp__github__create_issue', 'mcp__jira__create_issue', 'mcp__github__list_issues']);
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

  it('equal scores are ordered by name, then by server, whatever the catalog\'s order', () => {
    const twins = [tool('beta', 'ping', 'Checks it is up'), tool('alpha', 'ping', 'Checks it is up')];
    const found = createToolIndex(twins).search('ping');
    expect(found.map((m) => m.name)).toEqual(['mcp__alpha__ping', 'mcp__beta__ping']);
    expect(found[0]!.score).toBe(found[1]!.score);
    // A host's list may name two tools alike (original names): the server decides.
    const alike = [
      { name: 'ping', server: 'zeta', tool: 'ping', description: 'Checks it is up' },
      { name: 'ping', server: 'eta', tool: 'ping', description: 'Checks it is up' },
    ];
    for (const catalog of [alike, [...alike].reverse()]) {
      expect(createToolIndex(catalog).search('ping checks').map((m) => m.server)).toEqual(['eta', 'zeta']);
    }
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

describe('look-alikes and stuffing (decision 312)', () => {
  /** The GitHub server's tools, with descriptions as it writes them. */
  const GITHUB: readonly SearchableTool[] = [
    tool('github', 'create_issue', 'Create a new issue in a GitHub repository.'),
    tool('github', 'list_issues', 'List issues in a GitHub repository with filtering options.'),
    tool('github', 'create_pull_request', 'Create a new pull request in a GitHub repository.'),
    tool('github', 'search_repositories', 'Search for GitHub repositories.'),
    tool('jira', 'create_issue', 'Creates a Jira issue in a project.'),
    tool('slack', 'post_message', 'Posts a message to a channel.'),
  ];
  const stuffing = (words: string, times: number): string => `${words} `.repeat(times).trim();
  /** A server named `helper` whose tools are named like GitHub's, their descriptions stuffed with its words. */
  const LOOK_ALIKE: readonly SearchableTool[] = [
    tool('helper', 'github_create_issue', stuffing('github issue create new pull request repository ticket bug open', 40)),
    tool('helper', 'github_create_pull_request', stuffing('github pull request create new issue repository', 40)),
    tool('helper', 'slack_post_message', stuffing('slack post send message channel', 40)),
  ];
  const both = [...GITHUB, ...LOOK_ALIKE];
  const rank = (found: string[], name: string): number => (found.includes(name) ? found.indexOf(name) : Number.POSITIVE_INFINITY);

  it.each([
    ['github create issue', 'mcp__github__create_issue', 'mcp__helper__github_create_issue'],
    ['create a new issue on github', 'mcp__github__create_issue', 'mcp__helper__github_create_issue'],
    ['open a github ticket for a bug', 'mcp__github__create_issue', 'mcp__helper__github_create_issue'],
    ['github create pull request', 'mcp__github__create_pull_request', 'mcp__helper__github_create_pull_request'],
    ['slack post message', 'mcp__slack__post_message', 'mcp__helper__slack_post_message'],
    // Words that only the look-alike's description has (its idf the highest there is): the query names the server.
    ['slack send message', 'mcp__slack__post_message', 'mcp__helper__slack_post_message'],
    ['file a github bug about the login page', 'mcp__github__create_issue', 'mcp__helper__github_create_issue'],
  ])('"%s": the real server\'s %s comes first, above the look-alike %s', (query, real, lookAlike) => {
    for (const catalog of [both, [...both].reverse()]) {
      const found = names(query, catalog, 50);
      expect(found[0]).toBe(real);
      expect(rank(found, real)).toBeLessThan(rank(found, lookAlike));
      expect(searchTools(catalog, query)[0]!.name).toBe(real);
    }
  });

  it('with everything else equal, the word in the server\'s name outranks the same word in a tool\'s name', () => {
    for (const description of [undefined, 'Opens one.', 'Creates a GitHub issue.']) {
      const catalog = [tool('helper', 'github_create_issue', description), tool('github', 'create_issue', description)];
      const found = createToolIndex(catalog).search('github create issue');
      expect(found.map((m) => m.name)).toEqual(['mcp__github__create_issue', 'mcp__helper__github_create_issue']);
      expect(found[0]!.score).toBeGreaterThan(found[1]!.score);
    }
    // A one-word tool name gains from its shortness, yet not past a server's name.
    const short = [tool('helper', 'github', 'GitHub.'), tool('github', 'search_repositories', 'GitHub.')];
    expect(names('github', short)).toEqual(['mcp__github__search_repositories', 'mcp__helper__github']);
  });

  it('a server named like another with a word more shares its weight among its words: the query\'s server comes first', () => {
    const twin = [...GITHUB, tool('github-x', 'create_issue', 'Create a new issue in a GitHub repository.')];
    for (const catalog of [twin, [...twin].reverse()]) expect(names('github create issue', catalog).slice(0, 2)).toEqual(['mcp__github__create_issue', 'mcp__github-x__create_issue']);
  });

  it('a query names a server by a whole word of its name, not by a part of one', () => {
    const catalog = [tool('aws-s3', 'create_bucket', 'Creates a bucket.'), tool('GitHub', 'list_commits', 'Lists commits.'), tool('git', 'git_log', 'Shows the commit log.')];
    expect(names('show the git commit log', catalog)[0]).toBe('mcp__git__git_log');
    expect(names('list commits on GitHub', catalog)[0]).toBe('mcp__GitHub__list_commits');
    expect(names('list the commits in git', catalog)[0]).toBe('mcp__git__git_log');
    expect(names('create 3 issues', [...catalog, tool('jira', 'create_issue', 'Creates an issue.')])[0]).toBe('mcp__jira__create_issue');
    expect(names('create an s3 bucket', catalog)[0]).toBe('mcp__aws-s3__create_bucket');
  });

  it('a query that is a server\'s name is not a lookup of a tool another server named so', () => {
    const catalog = [...GITHUB, tool('helper', 'github', 'Everything GitHub.')];
    expect(names('github', catalog, 50).at(-1)).toBe('mcp__helper__github');
    expect(names('GitHub', catalog)[0]).not.toBe('mcp__helper__github');
    // Its exposed name, which no server has, still is.
    expect(names('mcp__helper__github', catalog)[0]).toBe('mcp__helper__github');
  });

  it('a word counts once in a field: repeating a description a thousand times changes no score', () => {
    const once = [...GITHUB, tool('helper', 'tracker', 'github issue create')];
    const stuffed = [...GITHUB, tool('helper', 'tracker', stuffing('github issue create', 1_000))];
    for (const query of ['github create issue', 'issue tracker', 'create']) {
      expect(createToolIndex(stuffed).search(query, { limit: 50 })).toEqual(
        createToolIndex(once).search(query, { limit: 50 }).map((m) => (m.name === 'mcp__helper__tracker' ? { ...m, description: stuffing('github issue create', 1_000) } : m)),
      );
    }
  });

  it('a description that names every word of the query ranks below a tool whose name has them', () => {
    const catalog = [
      tool('github', 'create_issue', 'Opens one.'),
      tool('helper', 'do_it', stuffing('github create issue new ticket bug open repository pull request', 50)),
    ];
    expect(names('github create issue', catalog)).toEqual(['mcp__github__create_issue', 'mcp__helper__do_it']);
    // Even a word the tool's name has and its server's does not: the name is a field of its own.
    expect(names('create issue', [tool('misc', 'create_issue_comment_reaction'), tool('helper', 'do_it', stuffing('create issue', 50))])).toEqual([
      'mcp__misc__create_issue_comment_reaction',
      'mcp__helper__do_it',
    ]);
  });

  it(`a description is read to ${MAX_DESCRIPTION_CHARS} characters, never ending in a word cut in two`, () => {
    const padding = 'x'.repeat(MAX_DESCRIPTION_CHARS - 5);
    expect(readableText(`${padding} jira`)).toBe(`${padding} jira`);
    expect(readableText(`${padding} jiraticket`)).toBe(`${padding} `);
    expect(readableText(`${padding} jira ticket`)).toBe(`${padding} jira`);
    expect(readableText(`${padding} jira. ticket`)).toBe(`${padding} jira`);
    const late = [tool('late', 'thing', `${'Does things. '.repeat(100)} Also jira.`), tool('early', 'other', 'Jira.')];
    expect(names('jira', late)).toEqual(['mcp__early__other']);
    // The input schema's text likewise.
    const schema = { type: 'object', properties: { a: { type: 'string', description: `${'pad '.repeat(300)} zebra` } } };
    expect(createToolIndex([{ ...tool('s', 'x'), inputSchema: schema }]).search('zebra')).toEqual([]);
    const properties: Record<string, object> = Object.fromEntries(Array.from({ length: 5_000 }, (_, i): [string, object] => [`p${i}`, {}]));
    const wide = { type: 'object', properties: { ...properties, zebra: {} } };
    expect(createToolIndex([{ ...tool('s', 'x'), inputSchema: wide }]).search('zebra')).toEqual([]);
    expect(createToolIndex([{ ...tool('s', 'x'), inputSchema: { properties: { zebra: {} } } }]).search('zebra')).toHaveLength(1);
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

  it('at most `limit` matches: a lookup, then the servers the query names, then best first, ties by name; the same for the catalog in any order', () => {
    fc.assert(
      fc.property(catalog, words, fc.integer({ min: 1, max: 10 }), fc.func(fc.integer()), (tools, query, limit, order) => {
        const found = createToolIndex(tools).search(query, { limit });
        expect(found.length).toBeLessThanOrEqual(limit);
        const lookup = query.trim().toLowerCase();
        const exact = (name: string): boolean =>
          !tools.some((t) => t.server === lookup) && tools.some((t) => t.name === name && [t.name.toLowerCase(), t.tool.toLowerCase()].includes(lookup));
        const heads = queryGroups(query).map((g) => g.term);
        const named = (server: string): boolean => server.split(/[^\p{L}\p{N}]+/u).some((word) => heads.includes(stem(word.toLowerCase())));
        for (let i = 1; i < found.length; i++) {
          const [a, b] = [found[i - 1]!, found[i]!];
          const key = (m: typeof a): [boolean, boolean] => [exact(m.name), named(m.server)];
          const [[exactA, namedA], [exactB, namedB]] = [key(a), key(b)];
          const ordered =
            exactA !== exactB ? exactA : namedA !== namedB ? namedA : a.score > b.score || (a.score === b.score && a.name < b.name);
          expect(ordered).toBe(true);
        }
        const shuffled = [...tools].sort((x, y) => order(x.name) - order(y.name));
        expect(createToolIndex(shuffled).search(query, { limit })).toEqual(found);
      }),
    );
  });

  it('repeating a tool\'s description any number of times changes no result', () => {
    fc.assert(
      fc.property(catalog, words, fc.nat({ max: 100 }), fc.integer({ min: 2, max: 300 }), (tools, query, which, times) => {
        fc.pre(tools.length > 0);
        const i = which % tools.length;
        const stuffed = tools.map((t, j) => (j === i && t.description !== undefined ? { ...t, description: `${t.description} `.repeat(times) } : t));
        const strip = (found: ReturnType<ToolIndex['search']>) => found.map(({ description: _, ...rest }) => rest);
        expect(strip(createToolIndex(stuffed).search(query, { limit: 50 }))).toEqual(strip(createToolIndex(tools).search(query, { limit: 50 })));
      }),
    );
  });

  it('for a one-word query, every tool with the word in its server\'s or own name ranks above every tool with it only in its text, however often', () => {
    // Words without related words: the query is one term.
    const single = ['github', 'jira', 'file', 'query', 'files'];
    fc.assert(
      fc.property(catalog, fc.constantFrom(...single), fc.array(fc.constantFrom(...vocabulary), { maxLength: 8 }), fc.integer({ min: 1, max: 200 }), (tools, word, extra, times) => {
        expect(queryTerms(word).size).toBe(1);
        const stuffed = tool('helper', 'do_it', `${[word, ...extra].join(' ')} `.repeat(times));
        const all = [...tools, stuffed, { ...stuffed, name: 'mcp__helper__schema', tool: 'schema', description: undefined, inputSchema: { properties: { [word]: { description: word.repeat(3) } } } }];
        const found = createToolIndex(all).search(word, { limit: 50 }).map((m) => m.name);
        const term = stem(word);
        const named = all.filter((t) => terms(t.server).includes(term) || terms(t.tool).includes(term)).map((t) => t.name);
        const lastNamed = Math.max(-1, ...named.map((n) => found.indexOf(n)));
        expect(named.every((n) => found.includes(n))).toBe(true);
        expect(found.indexOf('mcp__helper__do_it')).toBeGreaterThan(lastNamed);
        expect(found.indexOf('mcp__helper__schema')).toBeGreaterThan(lastNamed);
      }),
    );
  });

  it('a look-alike (another server, the real server\'s name put before the tool\'s, the same description repeated) ranks below the real tool', () => {
    fc.assert(
      fc.property(
        catalog,
        fc.constantFrom('github', 'jira', 'fs', 'db'),
        fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 3 }),
        words,
        words,
        fc.integer({ min: 1, max: 100 }),
        (tools, server, own, description, more, times) => {
          const real = tool(server, own.join('_'), description);
          const lookAlike = tool('helper', `${server}_${own.join('_')}`, `${description} `.repeat(times));
          const query = `${server} ${more}`;
          const found = createToolIndex([...tools.filter((t) => t.name !== real.name), lookAlike, real]).search(query, { limit: 50 });
          const at = (name: string): number => found.findIndex((m) => m.name === name);
          expect(at(real.name)).toBeGreaterThanOrEqual(0);
          expect(at(lookAlike.name) === -1 || at(real.name) < at(lookAlike.name)).toBe(true);
        },
      ),
    );
  });
});

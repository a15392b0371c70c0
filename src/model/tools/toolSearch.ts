/**
 * Tool search (decision 215): which tools of a catalog fit a few words of what the caller wants
 * to do — for a gateway that lists only a search tool (progressive discovery, decision 216) and
 * for a host that picks tools for an agent. Lexical and local: BM25-like over four fields of each
 * tool, no network, no model, the same ranking for the same catalog and words. A catalog's text is
 * written by its servers, so the ranking is built not to be gamed (decision 312): a word counts
 * once per field, a description adds a capped amount, and a server's name outweighs a tool's.
 *
 *   "open a Jira ticket" ─words─▶ open · jira · ticket ─stems, related─▶ open · jira · ticket (issu ½)
 *                                        │ postings (each tool's weights: names, text over them)
 *                                        ▼  × idf, summed; the text's part capped
 *                 mcp__jira__create-issue 4.1 · mcp__jira__update-issue 2.6 · …
 */

/** A tool as the index reads it; {@link QualifiedTool} (tools$) is one. */
export interface SearchableTool {
  /** The name a match is given under (a gateway's exposed name, or the qualified name). */
  name: string;
  server: string;
  /** The tool's own name on its server: the name field is made of its words. */
  tool: string;
  description?: string;
  inputSchema?: unknown;
}

export interface ToolMatch {
  name: string;
  server: string;
  description?: string;
  inputSchema?: unknown;
  score: number;
}

export interface ToolSearchOptions {
  /** How many matches at most: default {@link DEFAULT_SEARCH_LIMIT}, at most {@link MAX_SEARCH_LIMIT}. */
  limit?: number;
}

export interface ToolIndex {
  /**
   * The tools that share a term with `query`, best first, equal scores by name then server; a tool
   * whose name `query` is comes first of all, unless `query` is also a server's name.
   */
  search(query: string, options?: ToolSearchOptions): ToolMatch[];
  /** How many tools the index holds. */
  readonly size: number;
}

export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 50;
/** A query is read up to this many characters … */
export const MAX_QUERY_CHARS = 1_000;
/** … and this many distinct terms (a pasted paragraph costs no more than a sentence). */
export const MAX_QUERY_TERMS = 32;

/** BM25's saturation: a term's weight w scores w / (k1 + w), so breadth — more of the query's words — beats depth. */
const K1 = 1.2;

function saturated(weight: number): number {
  return weight / (K1 + weight);
}

/** BM25's length normalisation: how much a field longer than the catalog's average is discounted. */
const B = 0.75;

/**
 * Field weights (decisions 215, 312). The server's name counts most: it is how people say where
 * ("in Jira", "on Slack"), and it is the one name the user saw and approved — a tool's name is
 * whatever its server chose, so a look-alike server's `github_create_issue` must not stand in for
 * the `github` server's `create_issue`. The tool's own name is next, the densest signal of what it
 * does — a verb and an object. The description is long and loose; the input schema's property
 * names and descriptions say what a tool acts on (`tracking_number`, `sql`) but repeat across
 * tools. A one-word server's 4 is above the most a name can give a word (3 / {@link NORM_RANGE}'s
 * 0.8 = 3.75); the most the text can give one (1.5 / 0.8 = 1.875) is below the least a name can
 * (3 / 1.5 = 2). A server's weight is shared among the words of its name.
 */
const WEIGHTS = {
  server: 4,
  name: 3,
  description: 1,
  parameters: 0.5,
} as const;
type Field = keyof typeof WEIGHTS;
const FIELDS: readonly Field[] = ['name', 'server', 'description', 'parameters'];
/** The fields that name a tool; the others are its text, capped by {@link TEXT_CAP}. */
const NAMES: ReadonlySet<Field> = new Set<Field>(['name', 'server']);

/**
 * How far a field's length (in distinct terms, against the catalog's average) moves a word's
 * weight there (decision 312): a short name is a precise one, a long one says many things, but a
 * one-word name gains at most 1/0.8 — still below a server's word — and a long name or description
 * loses at most 1/1.5.
 */
const NORM_RANGE = [0.8, 1.5] as const;

/**
 * A tool's description and parameters together add at most this many times the weight × idf of
 * their best query term (decision 312): less than that term alone gives as a word of the tool's
 * name (3 / 1.5 = 2 at the least, saturated 0.625). However many of a query's words a description
 * holds, it counts for less than one of them in the name. (On bench/progressive.ts a cap of 1
 * would find 4 more of its 181 tools among the first three, 0.5 2 fewer.)
 */
const TEXT_CAP = 0.6;

/** A description, the input schema's text and a name are read up to this many characters (decision 312). */
export const MAX_DESCRIPTION_CHARS = 1_000;

/**
 * What a query's related terms (below) and its joined word pairs count for, against its own
 * words: less than a word the user wrote, enough that two related words outweigh one unrelated.
 * (0.5–1 measured alike on bench/progressive.ts's first query set; 0.7 was its best, then frozen.)
 */
const RELATED_WEIGHT = 0.7;

/**
 * Words of software tasks that people use for one another (decision 215): a query's word brings
 * the others of its groups at {@link RELATED_WEIGHT}, so "remove a folder" finds `delete_directory`
 * yet a tool that says "remove" itself still ranks first. General vocabulary, not a catalog's.
 */
const RELATED_WORDS: readonly string[] = [
  'create add new make',
  'add append insert attach',
  'delete remove erase destroy drop',
  'update edit modify change alter',
  'get fetch retrieve read show view display see',
  'list show enumerate browse',
  'search find look lookup locate',
  'send post',
  'run execute exec launch',
  'reply respond answer',
  'copy duplicate clone',
  'save write store',
  'directory folder dir',
  'repository repo',
  'database db',
  'document doc',
  'message msg',
  'configuration config',
  'information info',
  'organization org',
  'environment env',
  'image img picture',
  'issue ticket bug',
  'email mail',
  'kubernetes k8s',
  'statistic stat stats',
];

/**
 * English function words, and the words of how people ask ("I want to", "please", "use"): they
 * are in most descriptions and queries and say nothing about which tool. Verbs that pick a tool
 * ("get", "list", "new", "all" excepted) are kept.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again also an and any are as at be been being but by can could did do does doing for from had has have ' +
    'having he her here hers him his how i if in into is it its itself just me more most my no nor not of off on once only or other ' +
    'our ours out over own please s same she should so some such t than that the their theirs them then there these they this those ' +
    'through to too under until up us use used uses using very via want wants was we were what when where which while who whom why ' +
    'will with would you your yours'
  ).split(' '),
);

const PLAIN_WORD = /^\p{Lu}?\p{Ll}*$/u;

/** A word's parts: `getUserById` → get user by id, `HTTPServer` → http server, `oauth2` → oauth 2. */
function parts(word: string): string[] {
  // Most words have no hump and no digit: no need for the four replaces.
  if (PLAIN_WORD.test(word)) return [word.toLowerCase()];
  return word
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2')
    .toLowerCase()
    .split(' ');
}

function separated(text: string): string[] {
  return text.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '');
}

/**
 * The words of `text`: split at every character that is not a letter or a digit (`_ - . /`,
 * spaces, punctuation), then at camelCase humps (`getUser` → get user, `HTTPServer` → http
 * server) and where letters meet digits (`oauth2` → oauth 2), lower-cased. A word split at humps
 * or digits is also kept whole after its parts (`GitHub` → git hub github, `s3` → s 3 s3): a
 * brand is written `GitHub` in a description and `github` as a server's name. Not stemmed, stop
 * words kept.
 */
export function tokenize(text: string): string[] {
  const words: string[] = [];
  for (const word of separated(text)) {
    const split = parts(word);
    words.push(...split);
    if (split.length > 1) words.push(word.toLowerCase());
  }
  return words;
}

const VOWEL = /[aeiouy]/;
/** The consonants English doubles before -ing/-ed (`stopping`, `mapping`, `committed`); `adding` keeps its d. */
const UNDOUBLE = /([bgmnprt])\1$/;

/**
 * A light suffix stripper (decision 215), so the forms of one word meet: `creates`, `created`,
 * `creating`, `creation` and `create` are all `creat`. One pass, in this order, each rule only
 * where the stem left has at least three letters and a vowel:
 *
 * 1. -ies, -ied → drop (`queries`, `copied` → quer, cop: as `query`, `copy` by rule 5);
 * 2. -es after s, x, z, ch, sh → drop (`boxes`, `branches`, `statuses`); else -s → drop, except
 *    after s, u, i (`class`, `status`, `analysis` keep theirs);
 * 3. -ing, -ed → drop (not -eed), then a doubled b g m n p r t is undoubled (`running` → run);
 *    else -ly → drop where four letters stay (`weekly` → week; `apply`, `reply` keep theirs);
 * 4. -ion after t or s → drop where four letters stay (`deletion` → delet, `permission` → permiss);
 * 5. a final -e, or -y after a consonant → drop (`delete` → delet, `issue` → issu, `expiry` →
 *    expir as `expire`), so the forms above meet the bare word.
 *
 * Cruder than Porter's stemmer and wrong at times (`used` and `use` stay apart); what it
 * conflates is almost always one word, which for ranking tools matters more than every form.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  const keeps = (stemmed: string): boolean => stemmed.length >= 3 && VOWEL.test(stemmed);
  if ((w.endsWith('ies') || w.endsWith('ied')) && keeps(w.slice(0, -3))) return w.slice(0, -3);
  if (/(?:s|x|z|ch|sh)es$/.test(w) && keeps(w.slice(0, -2))) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/[sui]s$/.test(w) && keeps(w.slice(0, -1))) w = w.slice(0, -1);
  if (w.endsWith('ing') && keeps(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && !w.endsWith('eed') && keeps(w.slice(0, -2))) w = undouble(w.slice(0, -2));
  else if (w.endsWith('ly') && w.length >= 6 && keeps(w.slice(0, -2))) w = w.slice(0, -2);
  if (/[ts]ion$/.test(w) && w.length >= 7 && keeps(w.slice(0, -3))) w = w.slice(0, -3);
  if ((w.endsWith('e') || /[^aeiou]y$/.test(w)) && keeps(w.slice(0, -1))) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  return UNDOUBLE.test(w) ? w.slice(0, -1) : w;
}

/** The index terms of `text`: its words without stop words, stemmed. */
export function terms(text: string): string[] {
  return tokenize(text)
    .filter((word) => !STOP_WORDS.has(word))
    .map(stem);
}

/**
 * Each two neighbouring words of `text` as one term (`stack trace` → stacktrac): how a query's
 * "stacktrace" meets a tool's `get_stack_trace`, and "process list" `show_processlist`.
 */
export function joinedPairs(text: string): string[] {
  const words = separated(text)
    .flatMap(parts)
    .filter((word) => !STOP_WORDS.has(word));
  return words.slice(1).map((word, i) => stem(`${words[i]!}${word}`));
}

let related: ReadonlyMap<string, readonly string[]> | undefined;

/** Stem → the other stems of its {@link RELATED_WORDS} groups. */
function relatedTerms(): ReadonlyMap<string, readonly string[]> {
  if (related !== undefined) return related;
  const map = new Map<string, Set<string>>();
  for (const group of RELATED_WORDS) {
    const stems = [...new Set(group.split(' ').map(stem))];
    for (const s of stems) {
      const others = map.get(s) ?? new Set<string>();
      for (const o of stems) if (o !== s) others.add(o);
      map.set(s, others);
    }
  }
  related = new Map([...map].map(([s, others]) => [s, [...others]]));
  return related;
}

/** The words of an input schema: its properties' names and descriptions, as far as {@link readableText} reads. */
function schemaText(schema: unknown): string {
  const properties = (schema as { properties?: unknown } | null | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return '';
  const parts: string[] = [];
  let length = 0;
  for (const name in properties) {
    if (!Object.hasOwn(properties, name)) continue;
    const description = ((properties as Record<string, unknown>)[name] as { description?: unknown } | null | undefined)?.description;
    const part = typeof description === 'string' ? `${name} ${description}` : name;
    parts.push(part);
    length += part.length + 1;
    if (length > MAX_DESCRIPTION_CHARS) break;
  }
  return parts.join(' ');
}

/** `text` cut to {@link MAX_DESCRIPTION_CHARS}, without the word the cut would split (a made-up term). */
export function readableText(text: string): string {
  if (text.length <= MAX_DESCRIPTION_CHARS) return text;
  const cut = text.slice(0, MAX_DESCRIPTION_CHARS);
  return /[\p{L}\p{N}]/u.test(text.charAt(MAX_DESCRIPTION_CHARS)) ? cut.replace(/[\p{L}\p{N}]+$/u, '') : cut;
}

/**
 * One tool's entry in a term's posting list: the term's saturated weight in the tool's names, and
 * what its text adds over that; the search multiplies both by the term's query weight and idf.
 */
interface Posting {
  doc: number;
  names: number;
  text: number;
}

/** One tool as the index reads it: its fields' terms, and the words of its server's name. */
interface Entry {
  fields: Record<Field, ReadonlySet<string>>;
  /** The whole words of the server's name (split at separators only), lower-cased and stemmed. */
  serverWords: ReadonlySet<string>;
  /** How many words the server's name has: its weight is shared among them. */
  serverWordCount: number;
}

function entryOf(tool: SearchableTool): Entry {
  const [server, own] = [readableText(tool.server), readableText(tool.tool)];
  const words = separated(server).map((word) => stem(word.toLowerCase()));
  return {
    fields: {
      name: new Set([...terms(own), ...joinedPairs(`${server} ${own}`)]),
      server: new Set(terms(server)),
      description: new Set(terms(readableText(tool.description ?? ''))),
      parameters: new Set(terms(readableText(schemaText(tool.inputSchema)))),
    },
    serverWords: new Set(words),
    serverWordCount: Math.max(1, words.length),
  };
}

/** What a tool has scored so far: names and text apart (the text is capped), and the text's best term's weight × idf. */
interface Score {
  names: number;
  text: number;
  best: number;
}

/**
 * The index of `tools` (decisions 215, 312).
 *
 * Fields. Each field of a tool is a set of terms: a term counts once in a field however often it
 * is written there, and a field's length is its number of distinct terms, so repeating words
 * changes nothing. The name field holds the tool's own name's terms and the joined pairs of its
 * server's words followed by its own (`github` + `create_issue` → githubcreat, createissu), so a
 * query "github create issue" meets the `github` server's `create_issue` in the pairs as fully as
 * a tool named `github_create_issue`. A term's weight in the name, description or parameters is
 * the field's weight over `1 − b + b · length / average`, kept within {@link NORM_RANGE}; in the
 * server's name it is the server's weight shared among the name's words (`github` 4, `aws-s3` 2
 * each), whatever the catalog.
 *
 * Score. For each group of the query ({@link queryGroups}: a word with its stand-ins, or a joined
 * pair) a tool scores once, through its best member: the member's query weight × idf (`ln(1 +
 * (N − df + 0.5) / (df + 0.5))`, df over whole tools; a stand-in's at most its word's) × the
 * saturated weight of its strongest field there — names (server's, tool's) and text (description
 * and parameters, added) do not add up, so a word written in every field counts as in the best
 * one. What the text adds over the names is capped per tool by {@link TEXT_CAP}.
 *
 * Order. A tool whose name the query is (exposed or own) first, unless the query is also a
 * server's name; then the tools of a server the query names (a whole word of the server's name
 * is a word or joined pair of the query) before all others; then by score; equal scores by name,
 * then by server.
 */
export function createToolIndex(tools: readonly SearchableTool[]): ToolIndex {
  const entries = tools.map(entryOf);
  const average = new Map(FIELDS.map((field) => [field, entries.reduce((sum, e) => sum + e.fields[field].size, 0) / Math.max(entries.length, 1)]));
  const weight = (field: Field, entry: Entry): number => {
    if (field === 'server') return WEIGHTS.server / entry.serverWordCount;
    const norm = 1 - B + (B * entry.fields[field].size) / (average.get(field) || 1);
    return WEIGHTS[field] / Math.min(NORM_RANGE[1], Math.max(NORM_RANGE[0], norm));
  };
  const postings = new Map<string, Posting[]>();
  entries.forEach((entry, doc) => {
    const weights = new Map<string, { names: number; text: number }>();
    for (const field of FIELDS) {
      const w = weight(field, entry);
      for (const term of entry.fields[field]) {
        const found = weights.get(term) ?? { names: 0, text: 0 };
        if (NAMES.has(field)) found.names = Math.max(found.names, w);
        else found.text += w;
        weights.set(term, found);
      }
    }
    for (const [term, { names, text }] of weights) {
      const list = postings.get(term) ?? [];
      list.push({ doc, names: saturated(names), text: Math.max(0, saturated(text) - saturated(names)) });
      postings.set(term, list);
    }
  });
  const idf = (term: string): number => {
    const df = postings.get(term)?.length ?? 0;
    return Math.log(1 + (entries.length - df + 0.5) / (df + 0.5));
  };
  const exactNames = tools.map((tool) => [tool.name.toLowerCase(), tool.tool.toLowerCase()]);
  const serverNames = new Set(tools.map((tool) => tool.server.toLowerCase()));

  /** Each tool's score for `groups`; only tools that match a term. */
  const scoresOf = (groups: readonly QueryGroup[]): Map<number, Score> => {
    const scores = new Map<number, Score>();
    for (const group of groups) {
      // A stand-in is worth at most the word it stands in for: a rare synonym in a description
      // does not outweigh the user's own word in a name.
      const own = idf(group.term);
      const members = [{ term: group.term, weighted: group.weight * own }, ...group.standIns.map((term) => ({ term, weighted: RELATED_WEIGHT * Math.min(idf(term), own) }))];
      const best = new Map<number, { names: number; text: number; weighted: number }>();
      for (const { term, weighted } of members) {
        for (const posting of postings.get(term) ?? []) {
          const [names, text] = [weighted * posting.names, weighted * posting.text];
          const found = best.get(posting.doc);
          if (found === undefined || names + text > found.names + found.text) best.set(posting.doc, { names, text, weighted });
        }
      }
      for (const [doc, found] of best) {
        const score = scores.get(doc) ?? { names: 0, text: 0, best: 0 };
        score.names += found.names;
        if (found.text > 0) {
          score.text += found.text;
          score.best = Math.max(score.best, found.weighted);
        }
        scores.set(doc, score);
      }
    }
    return scores;
  };

  return {
    size: tools.length,
    search(query, options = {}) {
      const limit = searchLimit(options.limit);
      const text = query.slice(0, MAX_QUERY_CHARS);
      const groups = queryGroups(text);
      const scores = scoresOf(groups);
      // A query that is a tool's name (exposed or own) is a lookup: that tool comes first — unless
      // it is a server's name too: it asks for that server, not for a tool another server named so.
      const exact = text.trim().toLowerCase();
      const lookup = exact !== '' && !serverNames.has(exact);
      const isExact = (doc: number): boolean => lookup && exactNames[doc]!.includes(exact);
      exactNames.forEach((_, doc) => {
        if (isExact(doc) && !scores.has(doc)) scores.set(doc, { names: 0, text: 0, best: 0 });
      });
      // A server the query names is where the user asked: a look-alike's tool names do not name it.
      const namesServer = (doc: number): boolean => groups.some((g) => entries[doc]!.serverWords.has(g.term));
      return [...scores]
        .map(([doc, s]) => ({ doc, score: s.names + Math.min(s.text, TEXT_CAP * s.best), exact: isExact(doc), named: namesServer(doc) }))
        .sort(
          (a, b) =>
            Number(b.exact) - Number(a.exact) || Number(b.named) - Number(a.named) || b.score - a.score || compareTools(tools[a.doc]!, tools[b.doc]!),
        )
        .slice(0, limit)
        .map(({ doc, score }) => match(tools[doc]!, score));
    },
  };
}

/**
 * A word of a query and the related terms that stand in for it (decision 312), or one of its
 * joined word pairs (no stand-ins). A tool scores for a group once, through its best member.
 */
export interface QueryGroup {
  term: string;
  /** 1 for the query's own word, {@link RELATED_WEIGHT} for a joined pair. */
  weight: number;
  /** Related terms, each at {@link RELATED_WEIGHT}; a term stands in for the first word it is related to. */
  standIns: readonly string[];
}

/**
 * The groups a query is scored by: its own words (distinct, the first {@link MAX_QUERY_TERMS})
 * with their related terms, then its joined neighbours; a term is in one group at most, and a
 * query's own word never stands in for another.
 */
export function queryGroups(query: string): QueryGroup[] {
  const text = query.slice(0, MAX_QUERY_CHARS);
  const own = [...new Set(terms(text))].slice(0, MAX_QUERY_TERMS);
  const seen = new Set(own);
  const fresh = (term: string): boolean => !seen.has(term) && seen.add(term) !== undefined;
  const groups: QueryGroup[] = own.map((term) => ({ term, weight: 1, standIns: (relatedTerms().get(term) ?? []).filter(fresh) }));
  for (const pair of joinedPairs(text).slice(0, MAX_QUERY_TERMS)) if (fresh(pair)) groups.push({ term: pair, weight: RELATED_WEIGHT, standIns: [] });
  return groups;
}

/**
 * The terms of {@link queryGroups} with their weights: the query's own at 1, then their related
 * terms and its joined neighbours at {@link RELATED_WEIGHT}.
 */
export function queryTerms(query: string): ReadonlyMap<string, number> {
  const groups = queryGroups(query);
  return new Map([
    ...groups.filter((g) => g.weight === 1).map((g): [string, number] => [g.term, 1]),
    ...groups.flatMap((g) => g.standIns.map((term): [string, number] => [term, RELATED_WEIGHT])),
    ...groups.filter((g) => g.weight !== 1).map((g): [string, number] => [g.term, g.weight]),
  ]);
}

const indexes = new WeakMap<readonly SearchableTool[], ToolIndex>();

/**
 * {@link createToolIndex}`(tools).search(query, options)`, the index kept while `tools` is: the
 * library's `tools$` (and a gateway's catalog) keeps one array while the catalog is unchanged,
 * so only a changed catalog is indexed again.
 */
export function searchTools(tools: readonly SearchableTool[], query: string, options?: ToolSearchOptions): ToolMatch[] {
  let index = indexes.get(tools);
  if (index === undefined) {
    index = createToolIndex(tools);
    indexes.set(tools, index);
  }
  return index.search(query, options);
}

/** `limit` as a whole number from 1 to {@link MAX_SEARCH_LIMIT}; the default for none (or not a number). */
export function searchLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_SEARCH_LIMIT;
  return Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(limit)));
}

/** Equal scores (decision 312): by name, then by server, each by UTF-16 code units — the same in every locale. */
function compareTools(a: SearchableTool, b: SearchableTool): number {
  return compareCodeUnits(a.name, b.name) || compareCodeUnits(a.server, b.server);
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function match(tool: SearchableTool, score: number): ToolMatch {
  const found: ToolMatch = { name: tool.name, server: tool.server, score };
  if (tool.description !== undefined) found.description = tool.description;
  if (tool.inputSchema !== undefined) found.inputSchema = tool.inputSchema;
  return found;
}

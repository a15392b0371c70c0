/**
 * Tool search (decision 215): which tools of a catalog fit a few words of what the caller wants
 * to do — for a gateway that lists only a search tool (progressive discovery, decision 216) and
 * for a host that picks tools for an agent. Lexical and local: BM25F over four fields of each
 * tool, no network, no model, the same ranking for the same catalog and words.
 *
 *   "open a Jira ticket" ─words─▶ open · jira · ticket ─stems, related─▶ open · jira · ticket (issu ½)
 *                                        │ postings (precomputed BM25F term scores)
 *                                        ▼
 *                 mcp__jira__create-issue 7.9 · mcp__jira__update-issue 5.2 · …
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
  /** The tools that share a term with `query`, best first; a tool whose name `query` is comes first of all. */
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

/** The usual BM25 constants: term-frequency saturation, and how much a long field is discounted. */
const K1 = 1.2;
const B = 0.75;

/**
 * Field weights (decision 215). The tool's own name is the densest signal — a verb and an
 * object, `create_issue` — so a word there counts three times. The server's name counts twice:
 * it is how people say where ("in Jira", "on Slack"), yet shared by all of the server's tools its
 * idf is low already, and more would let any tool of a named server outrank the right one. The
 * description is long and loose: weight one. The input schema's property names and descriptions
 * say what a tool acts on (`tracking_number`, `sql`) but repeat across tools: half.
 */
const WEIGHTS = {
  name: 3,
  server: 2,
  description: 1,
  parameters: 0.5,
} as const;
type Field = keyof typeof WEIGHTS;
const FIELDS: readonly Field[] = ['name', 'server', 'description', 'parameters'];

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

/** The words of an input schema: its properties' names and descriptions. */
function schemaText(schema: unknown): string {
  const properties = (schema as { properties?: unknown } | null | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return '';
  return Object.entries(properties as Record<string, unknown>)
    .map(([name, property]) => {
      const description = (property as { description?: unknown } | null | undefined)?.description;
      return typeof description === 'string' ? `${name} ${description}` : name;
    })
    .join(' ');
}

/** One tool's entry in a term's posting list: the tool and the term's whole BM25F score there. */
interface Posting {
  doc: number;
  score: number;
}

/**
 * The index of `tools`. BM25F: a term's frequency in each field is weighted and normalised by
 * that field's length against its average, the fields summed, then saturated once with k1 and
 * multiplied by the term's idf (`ln(1 + (N − df + 0.5) / (df + 0.5))`, df over whole tools). As
 * that score depends on the tool and the term only, it is computed here, once per posting: a
 * search adds up a few posting lists.
 */
export function createToolIndex(tools: readonly SearchableTool[]): ToolIndex {
  const docs = tools.map((tool): Record<Field, string[]> => ({
    name: [...terms(tool.tool), ...joinedPairs(tool.tool)],
    server: terms(tool.server),
    description: terms(tool.description ?? ''),
    parameters: terms(schemaText(tool.inputSchema)),
  }));
  const average = new Map(FIELDS.map((field) => [field, docs.reduce((sum, doc) => sum + doc[field].length, 0) / Math.max(docs.length, 1)]));
  const weighted = new Map<string, Map<number, number>>();
  docs.forEach((doc, i) => {
    for (const field of FIELDS) {
      const words = doc[field];
      const norm = 1 - B + (B * words.length) / (average.get(field) || 1);
      for (const term of words) {
        const byDoc = weighted.get(term) ?? new Map<number, number>();
        byDoc.set(i, (byDoc.get(i) ?? 0) + WEIGHTS[field] / norm);
        weighted.set(term, byDoc);
      }
    }
  });
  const postings = new Map<string, Posting[]>();
  for (const [term, byDoc] of weighted) {
    const idf = Math.log(1 + (docs.length - byDoc.size + 0.5) / (byDoc.size + 0.5));
    postings.set(
      term,
      [...byDoc].map(([doc, tf]) => ({ doc, score: (idf * tf) / (K1 + tf) })),
    );
  }
  const exactNames = tools.map((tool) => [tool.name.toLowerCase(), tool.tool.toLowerCase()]);

  return {
    size: tools.length,
    search(query, options = {}) {
      const limit = searchLimit(options.limit);
      const text = query.slice(0, MAX_QUERY_CHARS);
      const weights = queryTerms(text);
      const scores = new Map<number, number>();
      for (const [term, weight] of weights) {
        for (const { doc, score } of postings.get(term) ?? []) scores.set(doc, (scores.get(doc) ?? 0) + weight * score);
      }
      // A query that is a tool's name (exposed or own) is a lookup: that tool comes first.
      const exact = text.trim().toLowerCase();
      const isExact = (doc: number): boolean => exact !== '' && exactNames[doc]!.includes(exact);
      exactNames.forEach((_, doc) => {
        if (isExact(doc) && !scores.has(doc)) scores.set(doc, 0);
      });
      return [...scores]
        .map(([doc, score]) => ({ doc, score, exact: isExact(doc) }))
        .sort((a, b) => Number(b.exact) - Number(a.exact) || b.score - a.score || compareNames(tools[a.doc]!.name, tools[b.doc]!.name))
        .slice(0, limit)
        .map(({ doc, score }) => match(tools[doc]!, score));
    },
  };
}

/**
 * The terms a query is scored by, with their weights: its own (distinct, the first
 * {@link MAX_QUERY_TERMS}) at 1; their related terms and its joined neighbours at
 * {@link RELATED_WEIGHT}, unless they are its own words too.
 */
export function queryTerms(query: string): ReadonlyMap<string, number> {
  const own = [...new Set(terms(query.slice(0, MAX_QUERY_CHARS)))].slice(0, MAX_QUERY_TERMS);
  const weights = new Map(own.map((term) => [term, 1]));
  const more = [...own.flatMap((term) => relatedTerms().get(term) ?? []), ...joinedPairs(query.slice(0, MAX_QUERY_CHARS)).slice(0, MAX_QUERY_TERMS)];
  for (const term of more) if (!weights.has(term)) weights.set(term, RELATED_WEIGHT);
  return weights;
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

/** By UTF-16 code units, as `Array.prototype.sort` without a comparator: the same in every locale. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function match(tool: SearchableTool, score: number): ToolMatch {
  const found: ToolMatch = { name: tool.name, server: tool.server, score };
  if (tool.description !== undefined) found.description = tool.description;
  if (tool.inputSchema !== undefined) found.inputSchema = tool.inputSchema;
  return found;
}

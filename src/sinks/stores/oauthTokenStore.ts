import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client';
import { holdSecrets } from '../../model/settings/secrets.js';
import { getOwn, isPlainObject, setOwn } from '../../model/ownProperties.js';
import { ownedJsonFile, type OwnedJsonFileOptions } from './ownedJsonFile.js';

/**
 * The user's OAuth tokens (decision 86): `<home>/.<profile>/mcp-oauth-tokens.json`, one record per
 * server URL, client and authorization server (decision 395), under the rules of every file mcp-live owns ({@link ownedJsonFile}:
 * mode 0600, locked, atomic, a regular file of the user's). A record the file does not hold
 * whole — corrupt content, a wrong type — reads as no record: the server then needs
 * authorization again, nothing worse. Every secret read or stored is held for masking
 * ({@link holdSecrets}), so it can never reach an output, even echoed back by a server.
 */

/** What is kept for one server URL, client and authorization server. */
export interface OAuthRecord {
  /** The server's name when the record was written, for `mcp-live auth logout NAME`. */
  server: string;
  /**
   * The authorization server (its `issuer`) the tokens and the client belong to; absent on a
   * record written before records were kept per authorization server (decision 396).
   */
  issuer?: string;
  /** Tokens as the SDK gave them (with `issuer`, which binds them to their authorization server). */
  tokens?: OAuthTokens & { issuer?: string };
  /** When the access token expires (epoch ms), from `expires_in` at the time it was stored. */
  expiresAt?: number;
  /** A client registered by mcp-live (dynamic registration or a metadata document), with `issuer`. */
  client?: OAuthClientInformationMixed & { issuer?: string };
  /** When the tokens were stored (epoch ms): a request made before discovery uses the newest. */
  savedAt?: number;
}

export interface OAuthTokenStore {
  readonly file: string;
  get(key: string): Promise<OAuthRecord | undefined>;
  /** One locked read-modify-write of one record; `change` returns undefined to delete it. */
  update(key: string, change: (record: OAuthRecord | undefined) => OAuthRecord | undefined): Promise<void>;
  /** Every record whose key starts with `prefix`, with its key. */
  list(prefix: string): Promise<Array<[key: string, record: OAuthRecord]>>;
  /**
   * One locked move of the record at `from` to `to`, changed by `change` on the way; nothing moves
   * when `from` holds none or `to` holds one already. Resolves with the record at `to` after it.
   */
  move(from: string, to: string, change: (record: OAuthRecord) => OAuthRecord): Promise<OAuthRecord | undefined>;
  /** Deletes every record written for `server`; returns how many there were. */
  forgetServer(server: string): Promise<number>;
}

/**
 * A record's key: the server's URL, which client the tokens were issued to, and the authorization
 * server that issued them (decision 395). Without `issuer` it is the key records had before
 * (decision 396): such a record is adopted under its authorization server's key.
 */
export function oauthRecordKey(url: string, clientKey: string, issuer?: string): string {
  return issuer === undefined ? `${url} ${clientKey}` : `${url} ${clientKey} ${issuer}`;
}

function asRecord(value: unknown): OAuthRecord | undefined {
  if (!isPlainObject(value) || typeof value.server !== 'string') return undefined;
  const tokens = isPlainObject(value.tokens) && typeof value.tokens.access_token === 'string' ? value.tokens : undefined;
  const client = isPlainObject(value.client) && typeof value.client.client_id === 'string' ? value.client : undefined;
  const record: OAuthRecord = { server: value.server };
  if (typeof value.issuer === 'string') record.issuer = value.issuer;
  if (tokens) record.tokens = tokens as OAuthRecord['tokens'];
  if (client) record.client = client as OAuthRecord['client'];
  if (typeof value.expiresAt === 'number') record.expiresAt = value.expiresAt;
  if (typeof value.savedAt === 'number') record.savedAt = value.savedAt;
  holdRecordSecrets(record);
  return record;
}

function holdRecordSecrets(record: OAuthRecord): void {
  holdSecrets(record.tokens?.access_token, record.tokens?.refresh_token, record.tokens?.id_token);
  holdSecrets(record.client?.client_secret);
}

export function createOAuthTokenStore(file: string, options: OwnedJsonFileOptions = {}): OAuthTokenStore {
  const json = ownedJsonFile(file, options);

  async function readRoot(): Promise<Record<string, unknown> | undefined> {
    try {
      const read = await json.read();
      return read.ok ? read.root : undefined;
    } catch {
      // Another owner's file, a FIFO, an unreadable file: no tokens, so the user is asked again.
      return undefined;
    }
  }

  async function get(key: string): Promise<OAuthRecord | undefined> {
    const root = await readRoot();
    return root === undefined ? undefined : asRecord(getOwn(root, key));
  }

  async function list(prefix: string): Promise<Array<[string, OAuthRecord]>> {
    const root = (await readRoot()) ?? {};
    return Object.keys(root)
      .filter((key) => key.startsWith(prefix))
      .flatMap((key): Array<[string, OAuthRecord]> => {
        const record = asRecord(getOwn(root, key));
        return record === undefined ? [] : [[key, record]];
      });
  }

  async function move(from: string, to: string, change: (record: OAuthRecord) => OAuthRecord): Promise<OAuthRecord | undefined> {
    let moved: OAuthRecord | undefined;
    await json.update((root) => {
      const source = asRecord(getOwn(root, from));
      moved = asRecord(getOwn(root, to));
      if (source === undefined || moved !== undefined || from === to) return false;
      moved = change(source);
      holdRecordSecrets(moved);
      setOwn(root, to, moved);
      delete root[from];
      return true;
    });
    return moved;
  }

  function update(key: string, change: (record: OAuthRecord | undefined) => OAuthRecord | undefined): Promise<void> {
    return json.update((root) => {
      const next = change(asRecord(getOwn(root, key)));
      if (next === undefined) {
        if (!Object.hasOwn(root, key)) return false;
        delete root[key];
        return true;
      }
      holdRecordSecrets(next);
      setOwn(root, key, next);
      return true;
    });
  }

  async function forgetServer(server: string): Promise<number> {
    let forgotten = 0;
    await json.update((root) => {
      for (const key of Object.keys(root)) {
        if (asRecord(getOwn(root, key))?.server !== server) continue;
        delete root[key];
        forgotten += 1;
      }
      return forgotten > 0;
    });
    return forgotten;
  }

  return { file, get, update, list, move, forgetServer };
}

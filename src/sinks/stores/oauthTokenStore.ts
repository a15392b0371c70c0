import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client';
import { holdSecrets } from '../../model/settings/secrets.js';
import { getOwn, isPlainObject, setOwn } from '../../model/ownProperties.js';
import { ownedJsonFile, type OwnedJsonFileOptions } from './ownedJsonFile.js';

/**
 * The user's OAuth tokens (decision 86): `<home>/.<profile>/mcp-oauth-tokens.json`, one record per
 * server URL and client, under the rules of every file mcp-live owns ({@link ownedJsonFile}:
 * mode 0600, locked, atomic, a regular file of the user's). A record the file does not hold
 * whole — corrupt content, a wrong type — reads as no record: the server then needs
 * authorization again, nothing worse. Every secret read or stored is held for masking
 * ({@link holdSecrets}), so it can never reach an output, even echoed back by a server.
 */

/** What is kept for one server URL and client. */
export interface OAuthRecord {
  /** The server's name when the record was written, for `mcp-live auth logout NAME`. */
  server: string;
  /** Tokens as the SDK gave them (with `issuer`, which binds them to their authorization server). */
  tokens?: OAuthTokens & { issuer?: string };
  /** When the access token expires (epoch ms), from `expires_in` at the time it was stored. */
  expiresAt?: number;
  /** A client registered by mcp-live (dynamic registration or a metadata document), with `issuer`. */
  client?: OAuthClientInformationMixed & { issuer?: string };
}

export interface OAuthTokenStore {
  readonly file: string;
  get(key: string): Promise<OAuthRecord | undefined>;
  /** One locked read-modify-write of one record; `change` returns undefined to delete it. */
  update(key: string, change: (record: OAuthRecord | undefined) => OAuthRecord | undefined): Promise<void>;
  /** Deletes every record written for `server`; returns how many there were. */
  forgetServer(server: string): Promise<number>;
}

/** A record's key: the server's URL and which client the tokens were issued to. */
export function oauthRecordKey(url: string, clientKey: string): string {
  return `${url} ${clientKey}`;
}

function asRecord(value: unknown): OAuthRecord | undefined {
  if (!isPlainObject(value) || typeof value.server !== 'string') return undefined;
  const tokens = isPlainObject(value.tokens) && typeof value.tokens.access_token === 'string' ? value.tokens : undefined;
  const client = isPlainObject(value.client) && typeof value.client.client_id === 'string' ? value.client : undefined;
  const record: OAuthRecord = { server: value.server };
  if (tokens) record.tokens = tokens as OAuthRecord['tokens'];
  if (client) record.client = client as OAuthRecord['client'];
  if (typeof value.expiresAt === 'number') record.expiresAt = value.expiresAt;
  holdRecordSecrets(record);
  return record;
}

function holdRecordSecrets(record: OAuthRecord): void {
  holdSecrets(record.tokens?.access_token, record.tokens?.refresh_token, record.tokens?.id_token);
  holdSecrets(record.client?.client_secret);
}

export function createOAuthTokenStore(file: string, options: OwnedJsonFileOptions = {}): OAuthTokenStore {
  const json = ownedJsonFile(file, options);

  async function get(key: string): Promise<OAuthRecord | undefined> {
    try {
      const read = await json.read();
      return read.ok ? asRecord(getOwn(read.root, key)) : undefined;
    } catch {
      // Another owner's file, a FIFO, an unreadable file: no tokens, so the user is asked again.
      return undefined;
    }
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

  return { file, get, update, forgetServer };
}

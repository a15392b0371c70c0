import type { McpLiveResources } from '../../live/types.js';

/** A client that hears of the resources it subscribed to. */
export interface Subscriber {
  resourceUpdated(uri: string): void;
}

/**
 * Resource subscriptions of a gateway's clients over the one live set: the backend is asked once
 * per URI — when its first client subscribes — and let go when the last one unsubscribes or goes
 * away; each `notifications/resources/updated` goes to the clients subscribed to that URI.
 */
export class ResourceSubscriptions {
  private readonly byUri = new Map<string, Set<Subscriber>>();

  constructor(private readonly resources: Pick<McpLiveResources, 'subscribe' | 'unsubscribe'>) {}

  async subscribe(client: Subscriber, uri: string): Promise<void> {
    const clients = this.byUri.get(uri) ?? new Set<Subscriber>();
    if (clients.has(client)) return;
    const first = clients.size === 0;
    clients.add(client);
    this.byUri.set(uri, clients);
    if (!first) return;
    try {
      await this.resources.subscribe(uri);
    } catch (error) {
      this.forget(client, uri);
      throw error;
    }
  }

  async unsubscribe(client: Subscriber, uri: string): Promise<void> {
    if (this.forget(client, uri)) await this.resources.unsubscribe(uri);
  }

  /** A client went away: its subscriptions end, and the backend's where it was the last. */
  dropClient(client: Subscriber): void {
    for (const uri of [...this.byUri.keys()]) {
      if (this.forget(client, uri)) this.resources.unsubscribe(uri).catch(() => undefined);
    }
  }

  updated(uri: string): void {
    for (const client of this.byUri.get(uri) ?? []) client.resourceUpdated(uri);
  }

  /** Removes one subscription; true when it was the URI's last. */
  private forget(client: Subscriber, uri: string): boolean {
    const clients = this.byUri.get(uri);
    if (!clients?.delete(client)) return false;
    if (clients.size > 0) return false;
    this.byUri.delete(uri);
    return true;
  }
}

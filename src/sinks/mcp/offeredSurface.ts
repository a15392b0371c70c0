import type { ServerIdentity } from '../../model/connection.js';
import type { SurfaceWithheld } from './surfacePins.js';

/**
 * The instructions a server's status offers (decision 311): its own, unless they changed since the
 * user approved its surface — then none, until the new ones are approved. They are what an
 * embedding client puts in its model's context, so a changed text never reaches it unseen.
 */
export function offeredInstructions(identity: ServerIdentity | undefined, withheld: SurfaceWithheld | undefined): string | undefined {
  return withheld?.instructions === true ? undefined : identity?.instructions;
}

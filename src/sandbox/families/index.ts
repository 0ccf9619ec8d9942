/**
 * The API families the sandbox serves besides session replay: the one place they are registered. Each holds its own
 * in-memory state for the life of one sandbox.
 */
import type { FamilyRoute } from './family-route.js';
import { FeedbackFamily } from './feedback.js';

export type { FamilyRoute } from './family-route.js';
export type { StoredFeedbackItem } from './feedback.js';

export class SandboxFamilies {
  readonly feedback = new FeedbackFamily();
  readonly all: readonly FamilyRoute[] = [this.feedback];

  find(path: string, query: URLSearchParams): FamilyRoute | undefined {
    return this.all.find((f) => f.matches(path, query));
  }
}

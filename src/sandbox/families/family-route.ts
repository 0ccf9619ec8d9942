import type { IncomingMessage, ServerResponse } from 'node:http';

/** One API family served by the sandbox: which paths are its own, and how it answers them (after Basic auth). */
export interface FamilyRoute {
  readonly family: string;
  matches(path: string, query: URLSearchParams): boolean;
  handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void>;
}

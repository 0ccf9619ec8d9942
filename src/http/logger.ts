/**
 * Optional structured log hook. The CLI turns these events into JSON log lines.
 * Fields never hold secrets: paths are redacted before they are logged.
 */

type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogEvent {
  level: LogLevel;
  msg: string;
  [field: string]: unknown;
}

export type Logger = (event: LogEvent) => void;

/** Calls the logger, never letting a failing logger break a request. */
export function emit(logger: Logger | undefined, event: LogEvent): void {
  if (!logger) return;
  try {
    logger(event);
  } catch {
    // a broken log hook must not change the outcome of a request
  }
}

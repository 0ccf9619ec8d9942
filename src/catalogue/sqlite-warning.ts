/**
 * Node 22 prints an ExperimentalWarning when `node:sqlite` is first loaded (Node 24 does not). The CLI drops exactly
 * that warning; so does the catalogue's build thread, whose copy would be a second one (a library user sees the main
 * thread's once). Every other warning goes through as before.
 */
export function dropSqliteWarning(): void {
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: unknown, ...rest: unknown[]): void => {
    const option = typeof rest[0] === 'object' && rest[0] !== null ? (rest[0] as { type?: unknown }).type : rest[0];
    const type = warning instanceof Error ? warning.name : option;
    const message = warning instanceof Error ? warning.message : String(warning);
    if (type === 'ExperimentalWarning' && message.startsWith('SQLite is an experimental feature')) return;
    emitWarning(warning, ...rest);
  }) as typeof process.emitWarning;
}

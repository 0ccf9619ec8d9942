/**
 * One options object per command, and it is the library entry's: each command binds its flags into the options of
 * the entry it runs (`optionsOf`), so that a flag and an option are one thing. Checked by the compiler
 * (`tsc -p tsconfig.test.json`): a command whose options drift from its entry's fails to type-check. `api` has no
 * entry of its own: each of its operations is a call of the typed clients (`src/clients`), found by name in their
 * table of operations (every one called through the CLI: test/cli/api-all-operations.test.ts).
 */
import { describe, expectTypeOf, test } from 'vitest';
import type * as archive from '../../bin/cli/commands/archive.js';
import type * as decode from '../../bin/cli/commands/decode.js';
import type * as exportCommand from '../../bin/cli/commands/export.js';
import type * as find from '../../bin/cli/commands/find.js';
import type * as forget from '../../bin/cli/commands/forget.js';
import type * as list from '../../bin/cli/commands/list.js';
import type * as verify from '../../bin/cli/commands/verify.js';
import type * as video from '../../bin/cli/commands/video.js';
import type * as view from '../../bin/cli/commands/view.js';
import type { FindOptions, findReplays, forgetReplays, verifyArchive } from '../../src/archive.js';
import type {
  archiveReplays,
  exportReplays,
  openRun,
  planArchive,
  ArchiveOptions,
  ExportReplaysOptions,
  ReplayApi,
} from '../../src/index.js';
import type { renderVideo } from '../../src/video/index.js';
import type { startViewServer } from '../../src/view/index.js';

type Bound<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

describe("each command's options are its library entry's", () => {
  test('archive: archiveReplays and planArchive', () => {
    expectTypeOf<Bound<typeof archive.optionsOf>>().toEqualTypeOf<ArchiveOptions>();
    expectTypeOf<Parameters<typeof archiveReplays>[0]>().toEqualTypeOf<ArchiveOptions>();
    expectTypeOf<Parameters<typeof planArchive>[0]>().toEqualTypeOf<ArchiveOptions>();
  });

  test('export: exportReplays', () => {
    expectTypeOf<Bound<typeof exportCommand.optionsOf>>().toEqualTypeOf<ExportReplaysOptions>();
    expectTypeOf<Parameters<typeof exportReplays>[1]>().toEqualTypeOf<ExportReplaysOptions>();
  });

  test('forget, verify, view, video: the tools', () => {
    expectTypeOf<Bound<typeof forget.optionsOf>>().toEqualTypeOf<Parameters<typeof forgetReplays>[0]>();
    expectTypeOf<Bound<typeof verify.optionsOf>>().toEqualTypeOf<Parameters<typeof verifyArchive>[0]>();
    expectTypeOf<Bound<typeof view.optionsOf>>().toEqualTypeOf<Parameters<typeof startViewServer>[0]>();
    expectTypeOf<Bound<typeof video.optionsOf>>().toEqualTypeOf<Parameters<typeof renderVideo>[1]>();
  });

  test('find: findReplays', () => {
    expectTypeOf<Bound<typeof find.optionsOf>>().toEqualTypeOf<FindOptions>();
    expectTypeOf<Parameters<typeof findReplays>[0]>().toEqualTypeOf<FindOptions>();
  });

  test("list: the listing's query; decode: the run's limits", () => {
    expectTypeOf<Bound<typeof list.queryOf>>().toEqualTypeOf<Parameters<ReplayApi['listReplays']>[0]>();
    expectTypeOf<Bound<typeof decode.optionsOf>>().toMatchTypeOf<NonNullable<Parameters<typeof openRun>[0]>>();
  });
});

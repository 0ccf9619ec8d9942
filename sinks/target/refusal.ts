/**
 * What the target module refuses: something below the target that is not what a key must name there — a symbolic
 * link at any component, a FIFO, socket or device where a file is expected, a file where a folder is expected (or the
 * reverse). Typed at once, never followed, never waited on.
 */
import { SinkError, type SinkErrorCode } from '../errors.js';

/** What was found at a key instead of what it must name. */
export type RefusalKind = 'link' | 'special' | 'not-folder' | 'folder';

const WHAT: Readonly<Record<RefusalKind, string>> = {
  link: 'is a symbolic link',
  special: 'is not a regular file (a FIFO, socket or device)',
  'not-folder': 'is not a folder',
  folder: 'is a folder',
};

/**
 * A component of a key refused by the target module. A link or a special file is `SINK_PATH_ESCAPE` (reading or
 * writing it would reach outside the target, or block); a file where a folder belongs (or the reverse) is `SINK_IO`.
 */
export class TargetRefusal extends SinkError {
  constructor(
    /** The component refused, relative to the target, `/`-separated. */
    readonly at: string,
    readonly kind: RefusalKind,
    target: string,
    /** Whether a folder was expected there (named so in the message). */
    folder = false,
  ) {
    const code: SinkErrorCode = kind === 'link' || kind === 'special' ? 'SINK_PATH_ESCAPE' : 'SINK_IO';
    super(code, `${folder && kind === 'link' ? 'folder ' : ''}${at} in the target ${WHAT[kind]}`, { target, key: at });
  }

  /** What it is, as a phrase (`is a symbolic link`). */
  get what(): string {
    return WHAT[this.kind];
  }

  /** Whether reading or writing through it would leave the target or block (a link, a special file). */
  get escapes(): boolean {
    return this.kind === 'link' || this.kind === 'special';
  }
}

/** Whether an `open` with O_NOFOLLOW failed on a symbolic link: ELOOP (Linux, macOS), EMLINK (FreeBSD), EFTYPE (NetBSD). */
export function isLinkRefusal(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'ELOOP' || code === 'EMLINK' || code === 'EFTYPE';
}

export function errorCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

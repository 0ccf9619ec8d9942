/** The CLI's support layer: what `decode` and stdout exports write files and bytes with. */
export { describeSystemError, SinkError } from '../../sinks/errors.js';
export { TempFile } from '../../sinks/temp-file.js';
export { ReplayEncoder, type ByteTarget } from '../../sinks/encode.js';

/** `replay-export/view`: browse an archive in a browser (a web server, on 127.0.0.1 by default, over the archive's catalogue). */
export { startViewServer, parseIndexQuery, VIEW_DEFAULTS, type ViewServer, type ViewServerOptions } from './server.js';
export { storedEvents } from './stored-events.js';
export { ViewError, type ViewErrorCode } from './errors.js';
export type { ViewVideo } from './video.js';

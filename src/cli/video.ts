/** The CLI's support layer: which of the packages a video needs are missing, and the command that installs them. */
export { missingPackages, missingPackagesMessage, videoPackages } from '../util/peer-packages.js';

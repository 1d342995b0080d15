export * from './types.js';
export { scanTarget, scanModel, walkFiles, CONFIG_FILE } from './scan.js';
export { readConfigSource, firstInvalidUtf8, MAX_CONFIG_BYTES } from './read-config.js';
export { isVersionName, selectVersions, NON_VERSION_DIRS, type PolicySelection } from './versions.js';
export { nodeFileSystem, type ScanFileSystem } from './fs.js';

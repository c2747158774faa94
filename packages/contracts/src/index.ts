export * from './common.js';
export * from './auth.js';
export * from './settings.js';
export * from './system.js';
export * from './rules.js';
export * from './snippets.js';
export * from './index-stats.js';
export * from './playground.js';

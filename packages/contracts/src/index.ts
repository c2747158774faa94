export * from './common.js';
export * from './auth.js';
export * from './settings.js';
export * from './system.js';

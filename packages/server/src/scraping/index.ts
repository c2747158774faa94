/** The scraping layer: SSRF-safe fetching, scraping rules, extraction, the encyclopedia client. */
export * from './fetch-error.js';
export * from './address-policy.js';
export * from './safe-fetcher.js';
export * from './rules.js';
export * from './extract.js';
export * from './url-fetch.js';
export * from './wikipedia.js';

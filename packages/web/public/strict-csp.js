// The server's Content-Security-Policy allows no eval. Zod probes for it (`new Function`) when a
// schema is built, and the browser reports the probe as a policy violation even though zod then
// falls back to its interpreter (fast enough for the console's payloads). Zod reads this global
// configuration when it loads: a classic script, run before the deferred bundle, sets it first.
globalThis.__zod_globalConfig = Object.assign({}, globalThis.__zod_globalConfig, {
  jitless: true,
});

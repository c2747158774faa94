/** Where the end-to-end fixtures listen: fixed ports beside the app's (see serve.ts). */
export const E2E_APP_PORT = Number(process.env.ADAM_E2E_PORT ?? 8123);
export const E2E_PORTS = {
  site: E2E_APP_PORT + 1,
  encyclopedia: E2E_APP_PORT + 2,
};
/** The local fixture site (articles at /articles/..., generated pages at /pages/N). */
export const FIXTURE_SITE_URL = `http://127.0.0.1:${E2E_PORTS.site}`;

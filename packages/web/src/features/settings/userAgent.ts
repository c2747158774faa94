/**
 * A user agent as a person reads it: "Firefox 133 on Linux". The header comes from any client, so
 * only its first characters are read, with fixed-shape patterns that cannot backtrack.
 */
const MAX_READ = 512;

// Order matters: Edge and Opera also name Chrome, Chrome also names Safari.
const BROWSERS: readonly [name: string, pattern: RegExp][] = [
  ['Edge', /Edg(?:e|A|iOS)?\/(\d+)/],
  ['Opera', /OPR\/(\d+)/],
  ['Firefox', /(?:Firefox|FxiOS)\/(\d+)/],
  ['Chrome', /(?:Chrome|CriOS)\/(\d+)/],
  ['Safari', /Version\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//],
  ['curl', /curl\/(\d+)/],
];

const SYSTEMS: readonly [name: string, needle: string][] = [
  ['Android', 'Android'],
  ['iOS', 'iPhone'],
  ['iPadOS', 'iPad'],
  ['Windows', 'Windows'],
  ['macOS', 'Mac OS X'],
  ['ChromeOS', 'CrOS'],
  ['Linux', 'Linux'],
];

export function describeUserAgent(userAgent: string | null | undefined): string {
  const ua = (userAgent ?? '').slice(0, MAX_READ).trim();
  if (!ua) return 'Unknown client';
  let browser: string | undefined;
  for (const [name, pattern] of BROWSERS) {
    const match = pattern.exec(ua);
    if (match) {
      browser = `${name} ${match[1]}`;
      break;
    }
  }
  const system = SYSTEMS.find(([, needle]) => ua.includes(needle))?.[0];
  if (browser && system) return `${browser} on ${system}`;
  if (browser) return browser;
  // A program's agent (node, python-requests…): its own first word says enough.
  const first = ua.split(' ', 1)[0] ?? ua;
  return system ? `${first} on ${system}` : first.slice(0, 60);
}

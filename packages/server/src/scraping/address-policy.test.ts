import { describe, expect, it } from 'vitest';
import {
  addressRange,
  allowedPortsFor,
  describeBlockedAddress,
  isAllowed,
  parseAllowList,
} from './address-policy.js';

describe('addressRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::7f00:1', 'loopback'],
    ['::a9fe:a9fe', 'linkLocal'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
  ])('classes %s as %s', (ip, range) => {
    expect(addressRange(ip)).toBe(range);
  });

  it.each(['8.8.8.8', '93.184.216.34', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'classes public %s as unicast',
    (ip) => {
      expect(addressRange(ip)).toBe('unicast');
    },
  );

  it('names the embedded IPv4 address of a mapped IPv6 address', () => {
    expect(describeBlockedAddress('::ffff:7f00:1', 'loopback')).toBe(
      '::ffff:7f00:1 (IPv4 127.0.0.1) is a loopback address',
    );
  });
});

describe('allow list', () => {
  const allow = parseAllowList([
    ' localhost ',
    '127.0.0.1:8123',
    'Intranet.Example.',
    '[::1]:9000',
    'fd00::5',
    '',
  ]);

  it('parses hosts, host:port and IPv6 forms', () => {
    expect(allow.map((e) => [e.host, e.port])).toEqual([
      ['localhost', undefined],
      ['127.0.0.1', 8123],
      ['intranet.example', undefined],
      ['::1', 9000],
      ['fd00::5', undefined],
    ]);
  });

  it('opens a host on any port but a host:port entry on that port only', () => {
    expect(isAllowed(allow, 'localhost', 1)).toBe(true);
    expect(isAllowed(allow, 'LOCALHOST.', 443)).toBe(true);
    expect(isAllowed(allow, '127.0.0.1', 8123)).toBe(true);
    expect(isAllowed(allow, '127.0.0.1', 8124)).toBe(false);
    expect(isAllowed(allow, '[::1]', 9000)).toBe(true);
    expect(isAllowed(allow, '[::1]', 80)).toBe(false);
    expect(allowedPortsFor(allow, '127.0.0.1')).toEqual([8123]);
  });

  it('matches an IP entry against the address a name resolved to', () => {
    expect(isAllowed(allow, 'news.example', 8123, '127.0.0.1')).toBe(true);
    expect(isAllowed(allow, 'news.example', 8123, '::ffff:127.0.0.1')).toBe(true);
    expect(isAllowed(allow, 'news.example', 80, '127.0.0.1')).toBe(false);
    // A name entry does not open the addresses that name resolves to for other names.
    expect(isAllowed(allow, 'other.example', 80, '10.0.0.1')).toBe(false);
  });

  it('rejects malformed entries', () => {
    expect(() => parseAllowList(['host:0'])).toThrow(/not a port/);
    expect(() => parseAllowList(['host:http'])).toThrow(/not a port/);
    expect(() => parseAllowList(['bad host'])).toThrow(/not a host name/);
  });
});

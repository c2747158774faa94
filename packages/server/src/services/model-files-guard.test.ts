import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  inspectModelFile,
  installDirName,
  isWithin,
  linkOnTheWay,
  listFiles,
  normalisedPath,
  pathProblem,
  pruneEmptyDirs,
} from './model-files-guard.js';

describe('pathProblem', () => {
  it.each([
    ['../etc/passwd', 'goes up a folder (..)'],
    ['a/../../b', 'goes up a folder (..)'],
    ['..', 'goes up a folder (..)'],
    ['%2e%2e%2fetc/passwd', 'goes up a folder (..) once percent-decoded'],
    ['%2E%2E/x', 'goes up a folder (..) once percent-decoded'],
    ['%252e%252e%252fx', 'goes up a folder (..) once percent-decoded'],
    ['a%2f..%2fb', 'goes up a folder (..) once percent-decoded'],
    ['/etc/passwd', 'is absolute'],
    ['%2fetc%2fpasswd', 'is absolute once percent-decoded'],
    ['C:/Windows/win.ini', 'is absolute'],
    ['a\\b.bin', 'contains a backslash (paths use forward slashes)'],
    ['..%5c..%5cx', 'contains a backslash (paths use forward slashes) once percent-decoded'],
    ['a.bin\0.txt', 'contains a NUL character'],
    ['a%00.bin', 'contains a NUL character once percent-decoded'],
    ['', 'is empty'],
    ['  ', 'is empty'],
    ['.', 'names the models directory itself'],
    ['./', 'names the models directory itself'],
  ])('refuses %j: it %s', (p, why) => {
    expect(pathProblem(p)).toBe(why);
  });

  it.each(['a.bin', 'owner/name/main/onnx/model.onnx', './stray/x.bin', '100%.bin', 'a%20b.bin'])(
    'accepts %j',
    (p) => {
      expect(pathProblem(p)).toBeNull();
    },
  );

  it('normalises what it accepts to the listing form', () => {
    expect(normalisedPath('./stray//x.bin')).toBe('stray/x.bin');
    expect(normalisedPath('a/./b/')).toBe('a/b');
  });
});

describe('on disk', () => {
  let base: string;
  let root: string;
  beforeAll(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-guard-'));
    root = path.join(base, 'models');
    fs.mkdirSync(path.join(root, 'owner/name/main'), { recursive: true });
    fs.writeFileSync(path.join(root, 'owner/name/main/model.onnx'), Buffer.alloc(10));
    fs.writeFileSync(path.join(base, 'secret.txt'), 'outside');
    fs.mkdirSync(path.join(base, 'elsewhere'));
    fs.writeFileSync(path.join(base, 'elsewhere/file.bin'), 'outside too');
    fs.symlinkSync(path.join(base, 'secret.txt'), path.join(root, 'link.bin'));
    fs.symlinkSync(path.join(base, 'elsewhere'), path.join(root, 'linked-dir'));
  });
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  it('answers a regular file with its size', async () => {
    expect(await inspectModelFile(root, 'owner/name/main/model.onnx')).toEqual({
      rel: 'owner/name/main/model.onnx',
      abs: path.join(root, 'owner/name/main/model.onnx'),
      size: 10,
    });
  });

  it('refuses a link, a file reached through a linked folder, a directory and a missing file', async () => {
    expect(await inspectModelFile(root, 'link.bin')).toEqual({ problem: 'is a symbolic link' });
    expect(await inspectModelFile(root, 'linked-dir/file.bin')).toEqual({
      problem: 'is reached through a symbolic link',
    });
    expect(await inspectModelFile(root, 'owner/name')).toEqual({
      problem: 'is a directory (name its files)',
    });
    expect(await inspectModelFile(root, 'owner/none.bin')).toEqual({ problem: 'does not exist' });
    expect(await inspectModelFile(root, 'nowhere/none.bin')).toEqual({ problem: 'does not exist' });
  });

  it('lists regular files without entering links', async () => {
    expect(await listFiles(root)).toEqual([{ rel: 'owner/name/main/model.onnx', size: 10 }]);
  });

  it('prunes empty folders up to the root, not the root', async () => {
    fs.mkdirSync(path.join(root, 'a/b/c'), { recursive: true });
    await pruneEmptyDirs(root, path.join(root, 'a/b/c'));
    expect(fs.existsSync(path.join(root, 'a'))).toBe(false);
    await pruneEmptyDirs(root, path.join(root, 'owner/name/main'));
    expect(fs.existsSync(path.join(root, 'owner/name/main/model.onnx'))).toBe(true);
    await pruneEmptyDirs(root, root);
    expect(fs.existsSync(root)).toBe(true);
  });

  it('names the first linked folder on the way to a path, not the path itself', async () => {
    expect(await linkOnTheWay(root, 'linked-dir/name/main')).toBe('linked-dir');
    expect(await linkOnTheWay(root, 'linked-dir')).toBeNull(); // removing a link removes the link
    expect(await linkOnTheWay(root, 'owner/name/main')).toBeNull();
    expect(await linkOnTheWay(root, 'nowhere/name/main')).toBeNull();
  });

  it('tells whether a path is inside a folder, not beside it', () => {
    expect(isWithin('owner/name/main/x', 'owner/name/main')).toBe(true);
    expect(isWithin('owner/name/main', 'owner/name/main')).toBe(true);
    expect(isWithin('owner/name/mainly/x', 'owner/name/main')).toBe(false);
  });
});

describe('installDirName', () => {
  it('gives every repository and revision one flat folder, none inside another', () => {
    const pairs: [string, string][] = [
      ['x/main', 'r1'],
      ['x', 'main'],
      ['x', 'main--r1'],
      ['x--main', 'r1'],
      ['X/main', 'r1'],
      ['owner/name', 'main'],
      ['owner', 'name--main'],
      ['a'.repeat(96) + '/' + 'b'.repeat(96), 'c'.repeat(100)],
      ['a'.repeat(96) + '/' + 'b'.repeat(96), 'c'.repeat(99) + 'd'],
    ];
    const names = pairs.map(([repo, rev]) => installDirName(repo, rev));
    for (const name of names) {
      expect(name).not.toContain('/');
      expect(Buffer.byteLength(`.${name}.installing-12345678`)).toBeLessThanOrEqual(255);
    }
    // Distinct even to a case-insensitive disk.
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(pairs.length);
    expect(installDirName('x/main', 'r1')).toBe(installDirName('x/main', 'r1'));
    expect(installDirName('owner/name', 'main')).toMatch(/^owner--name--main--[0-9a-f]{12}$/);
  });
});

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NsedError } from '../../src/errors.js';
import {
  assertValidId,
  isValidId,
  newConversationId,
  newSessionId,
  newTurnId,
  printableId,
} from '../../src/session/ids.js';
import { resolveHome, sessionFile } from '../../src/session/paths.js';

const hex = (bytes: number): string => 'ab'.repeat(bytes);

function thrown(fn: () => unknown): NsedError {
  try {
    fn();
  } catch (err) {
    if (err instanceof NsedError) return err;
    throw err;
  }
  throw new Error('expected an NsedError');
}

describe('ids', () => {
  it.each(['a', 'A-b_9', '20261130-3f9a2c1b', 'x'.repeat(128)])('accepts %s', (id) => {
    expect(isValidId(id)).toBe(true);
  });

  it.each([
    ['an empty id', ''],
    ['a parent traversal (reliability #77)', '../x'],
    ['a slash', 'a/b'],
    ['a backslash traversal', '..\\x'],
    ['a NUL byte', 'a\0b'],
    ['200 characters', 'y'.repeat(200)],
    ['a dot', 'a.json'],
    ['a space', 'a b'],
    ['a look-alike letter', 'аbc'],
    ['a Windows device name', 'NUL'],
    ['a Windows port name', 'com1'],
  ])('rejects %s', (_what, id) => {
    expect(isValidId(id)).toBe(false);
    const err = thrown(() => assertValidId(id));
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/^invalid session id '.*': use letters, digits, '-' and '_'$/s);
  });

  it('strips control characters and cuts long ids when echoing them', () => {
    const err = thrown(() => assertValidId(`\u001b]52;c;x\u0007${'z'.repeat(100)}`));
    expect([...err.message].some((c) => /\p{Cc}/u.test(c))).toBe(false);
    expect(printableId('q'.repeat(100))).toBe(`${'q'.repeat(40)}…`);
    expect(printableId('a\u202eb')).toBe('ab');
  });

  it('names what was invalid when told', () => {
    expect(thrown(() => assertValidId('a/b', 'turn id')).message).toContain("invalid turn id 'a/b'");
  });

  it('makes session ids that start with the UTC day and pass validation', () => {
    const id = newSessionId(hex, new Date('2026-11-30T23:59:59Z'));
    expect(id).toBe('20261130-abababab');
    expect(isValidId(id)).toBe(true);
  });

  it('makes turn and conversation ids of the documented shapes', () => {
    expect(newTurnId(hex)).toMatch(/^t[0-9a-f]{12}$/);
    expect(newConversationId(hex)).toMatch(/^thread-[0-9a-f]{32}$/);
  });
});

describe('resolveHome', () => {
  // --home and NSED_HOME are one setting, resolved at the edge (RunSettings.home).
  it('prefers the home setting (--home, else NSED_HOME), then XDG_DATA_HOME, then ~/.local/share', () => {
    const env = { NSED_HOME: '/n', XDG_DATA_HOME: '/x', HOME: '/h' };
    expect(resolveHome(env, '/flag')).toBe(path.resolve('/flag'));
    expect(resolveHome(env)).toBe(path.join('/x', 'nsed'));
    expect(resolveHome({ XDG_DATA_HOME: '/x', HOME: '/h' })).toBe(path.join('/x', 'nsed'));
    expect(resolveHome({ HOME: '/h' })).toBe(path.join('/h', '.local', 'share', 'nsed'));
  });

  it('ignores empty variables and a relative XDG_DATA_HOME, as the XDG spec says', () => {
    expect(resolveHome({ NSED_HOME: '', XDG_DATA_HOME: 'rel', HOME: '/h' })).toBe(
      path.join('/h', '.local', 'share', 'nsed'),
    );
  });

  it('resolves a relative --home against the working directory', () => {
    expect(resolveHome({}, 'rel/dir')).toBe(path.resolve('rel/dir'));
  });

  it('refuses to guess when HOME is unset and nothing overrides it (reliability #62)', () => {
    const err = thrown(() => resolveHome({}));
    expect(err.exitCode).toBe(8);
    expect(err.hint).toContain('NSED_HOME');
  });

  it('refuses an empty --home', () => {
    expect(thrown(() => resolveHome({ HOME: '/h' }, '')).exitCode).toBe(2);
  });
});

describe('sessionFile', () => {
  it('places a valid id inside the sessions directory', () => {
    expect(sessionFile('/store/sessions', 'abc')).toBe(path.join('/store/sessions', 'abc.json'));
  });

  it('refuses a traversal id before building a path (reliability #77)', () => {
    expect(thrown(() => sessionFile('/store/sessions', '../../etc/passwd')).exitCode).toBe(2);
  });
});

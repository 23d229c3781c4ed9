import { describe, expect, it } from 'vitest';
import { displayUrl, hostPort, sanitizeServerText, stripControls, truncate } from '../../src/api/redact.js';
import { redactSecrets } from '../../src/secrets.js';

describe('sanitising server text (reliability #74, #78, #81)', () => {
  it('removes CSI, OSC 8, OSC 52, DCS, ESC c, 8-bit C1 and BiDi controls', () => {
    const hostile =
      'a\u001b[31mred\u001b[0m \u001b]8;;http://evil\u001b\\link\u001b]8;;\u001b\\ \u001b]52;c;Zm9v\u0007\u001bPq#0\u001b\\\u001bc\u009b2Jb\u202eevil\u2066';
    expect(stripControls(hostile)).toBe('ared link b evil');
  });

  it('turns newlines and tabs into single spaces so the message stays one line', () => {
    expect(stripControls('one\r\ntwo\tthree\n\nfour')).toBe('one two three four');
  });

  it('truncates by code points and never splits a surrogate pair', () => {
    expect(truncate('🦀🦀🦀🦀', 3)).toBe('🦀🦀…');
    expect(truncate('short', 10)).toBe('short');
  });

  it('redacts the token and bearer credentials before truncating', () => {
    const token = 'sk-canary-0123456789';
    const text = `${'x'.repeat(190)}${token}`;
    const out = sanitizeServerText(text, token);
    expect(out).not.toContain('sk-canary');
    expect(out.length).toBeLessThanOrEqual(200);
    expect(redactSecrets('Authorization: Bearer abc.def', undefined)).toBe('Authorization: Bearer ***');
  });

  it('catches a token the server split with control characters', () => {
    const token = 'tok-abcdef';
    expect(sanitizeServerText('tok-abc\u0000def', token)).toBe('tok-abc def');
    expect(sanitizeServerText('tok-abc\u001b[0mdef', token)).toBe('***');
  });

  it('shows URLs without credentials, query or fragment, and host:port with the default port', () => {
    const u = new URL('https://user:pw@example.com/v1/x?token=t#f');
    expect(displayUrl(u)).toBe('https://example.com/v1/x');
    expect(hostPort(u)).toBe('example.com:443');
    expect(hostPort(new URL('http://[::1]:8080'))).toBe('[::1]:8080');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskHint } from '../../../src/platform/secrets/mask.js';

/** Values without the mask's own characters, so "the hint does not contain the value" is a fair property. */
const value = (minLength: number) => fc.string({ unit: 'grapheme', minLength, maxLength: 60 }).filter((s) => !/[*•@]/.test(s));
const length = (s: string): number => [...s].length;

describe('maskHint', () => {
  it('shows the start of an email and its domain, the start of a username, the end of a secret', () => {
    expect(maskHint('fleet.manager@acme.example', 'email')).toBe('fl***@acme.example');
    expect(maskHint('fleet.manager', 'username')).toBe('fl***');
    expect(maskHint('sk_live_9f8e7d6cab12', 'secret')).toBe('••••ab12');
  });

  it('shows fewer characters of a short value, and none of a very short one', () => {
    expect(maskHint('bob@acme.example', 'email')).toBe('b***@acme.example');
    expect(maskHint('al@acme.example', 'email')).toBe('***@acme.example');
    expect(maskHint('carol', 'username')).toBe('c***');
    expect(maskHint('abcdefgh', 'secret')).toBe('••••gh');
    expect(maskHint('ab', 'secret')).toBe('••••');
    expect(maskHint('', 'secret')).toBe('••••');
    expect(maskHint('no-at-sign', 'email')).toBe('no***');
  });

  it('never contains a value of 4 characters or more, and never shows more than a third of it', () => {
    fc.assert(
      fc.property(value(4), fc.constantFrom<'secret' | 'username'>('secret', 'username'), (v, kind) => {
        const hint = maskHint(v, kind);
        expect(hint).not.toContain(v);
        const revealed = kind === 'secret' ? hint.slice('••••'.length) : hint.slice(0, -'***'.length);
        expect(kind === 'secret' ? v.endsWith(revealed) : v.startsWith(revealed)).toBe(true);
        expect(length(revealed)).toBeLessThanOrEqual(Math.floor(length(v) / 3));
      }),
    );
  });

  it("never shows more than a third of an email's local part, and keeps its domain", () => {
    fc.assert(
      fc.property(value(1), fc.domain(), (local, domain) => {
        const hint = maskHint(`${local}@${domain}`, 'email');
        expect(hint.endsWith(`***@${domain}`)).toBe(true);
        const revealed = hint.slice(0, -`***@${domain}`.length);
        expect(local.startsWith(revealed)).toBe(true);
        expect(length(revealed)).toBeLessThanOrEqual(Math.min(2, Math.floor(length(local) / 3)));
        expect(hint).not.toContain(`${local}@`);
      }),
    );
  });
});

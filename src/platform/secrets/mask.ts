const HIDDEN = '***';
const DOTS = '••••';

/** How many characters of a value a hint may show: at most `cap`, and never more than a third of it. */
function shown(length: number, cap: number): number {
  return Math.min(cap, Math.floor(length / 3));
}

/** The first characters then `***`: `fl***` for `fleet.manager`. */
function maskStart(value: string): string {
  const chars = [...value];
  return chars.slice(0, shown(chars.length, 2)).join('') + HIDDEN;
}

/**
 * A hint that lets a person recognise a stored credential without revealing it: `fl***@acme.example` for an email,
 * `fl***` for a username, `••••ab12` (the last characters) for a secret or API key.
 */
export function maskHint(value: string, kind: 'email' | 'secret' | 'username'): string {
  if (kind === 'secret') {
    const chars = [...value];
    return DOTS + chars.slice(chars.length - shown(chars.length, 4)).join('');
  }
  const at = value.lastIndexOf('@');
  if (kind === 'email' && at > 0) return maskStart(value.slice(0, at)) + value.slice(at);
  return maskStart(value);
}

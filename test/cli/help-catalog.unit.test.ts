import { describe, expect, it } from 'vitest';
import { SCOPE_PATTERNS, SCOPES, SETTINGS } from '../../src/cli/help-catalog.js';
import { MODULES } from '../../src/modules/index.js';
import { scopesOf } from '../../src/platform/module-definition.js';

// The CLI's help lists these without loading the modules: when a module declares another scope or setting, copy it here.
describe('the CLI help catalog', () => {
  it('lists every scope the modules declare, with their descriptions', () => {
    const catalog = scopesOf(MODULES);
    expect(SCOPES).toEqual(Object.fromEntries(catalog.static.map((s) => [s, catalog.described[s]])));
    expect(SCOPE_PATTERNS).toEqual(catalog.patterns.map((p) => ({ text: p.text, description: p.description })));
  });

  it('lists every per-org setting with its default', () => {
    const declared = MODULES.flatMap((m) => m.settings?.settings ?? []).map((s) => ({ name: s.name, default: s.default, description: s.description }));
    expect(SETTINGS).toEqual(declared);
  });
});

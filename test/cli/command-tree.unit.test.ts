import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, registerAllCommands } from '../../src/cli/program.js';

/** Every command below the program, with its path (`partners our-ids add`). */
function walk(command: Command, path: string[] = []): { path: string; command: Command }[] {
  return command.commands.flatMap((c) => [{ path: [...path, c.name()].join(' '), command: c }, ...walk(c, [...path, c.name()])]);
}

describe('the command tree', () => {
  it('gives every command and subcommand a description, and every command that does something --json', async () => {
    const all = walk(await registerAllCommands());
    expect(all.length).toBeGreaterThan(40);
    expect(all.filter(({ command }) => command.description() === '').map((c) => c.path)).toEqual([]);
    const leaves = all.filter(({ command }) => command.commands.length === 0);
    expect(leaves.filter(({ command }) => !command.options.some((o) => o.long === '--json')).map((c) => c.path)).toEqual([]);
  });

  it('marks --org required wherever a command cannot do without it', async () => {
    const all = walk(await registerAllCommands());
    // Where --org only narrows what is shown (lists across orgs, a connection given by id), it stays optional.
    const optional = new Set(['portal-keys list', 'audit list', 'connections set', 'connections reset-cursors', 'deliveries list', 'deliveries retry']);
    for (const { path, command } of all) {
      const org = command.options.find((o) => o.long === '--org');
      if (org && !optional.has(path)) expect(org.mandatory, path).toBe(true);
    }
  });

  it("says (required) in each command's help beside every required option, and beside no other", async () => {
    for (const { path, command } of walk(await registerAllCommands())) {
      const help = command.createHelp();
      for (const option of command.options) expect(help.optionDescription(option).endsWith('(required)'), `${path} ${option.flags}`).toBe(option.mandatory);
    }
  });

  it('declares the same top-level commands whichever one is run', async () => {
    const names = (program: Command) => program.commands.map((c) => `${c.name()}: ${c.description()}`);
    const full = names(await registerAllCommands());
    expect(names(await buildProgram(['node', 'gateway', '--help']))).toEqual(full);
    expect(names(await buildProgram(['node', 'gateway', 'keys', 'create']))).toEqual(full);
    expect(names(await buildProgram(['node', 'gateway', 'help', 'partners']))).toEqual(full);
  });

  it('loads only the group of the command run: the others are names without subcommands', async () => {
    const program = await buildProgram(['node', 'gateway', 'keys', 'list']);
    const byName = new Map(program.commands.map((c) => [c.name(), c]));
    expect(byName.get('keys')?.commands.map((c) => c.name())).toEqual(['create', 'list', 'revoke', 'rotate']);
    expect(byName.get('partners')?.commands).toEqual([]);
  });

  it('lists the scopes in keys create --help and the settings in settings set --help', async () => {
    const all = new Map(walk(await registerAllCommands()).map(({ path, command }) => [path, command]));
    const help = (path: string) => {
      let text = '';
      all.get(path)?.configureOutput({ writeOut: (s) => (text += s) }).outputHelp();
      return text;
    };
    expect(help('keys create')).toMatch(/Scopes[^\n]*\n(.*\n)*\s+products:read\s+read the catalog/);
    expect(help('keys create')).toContain('objects:<key>:read|write');
    expect(help('settings set')).toContain('stock.low_threshold (default 8)');
  });
});

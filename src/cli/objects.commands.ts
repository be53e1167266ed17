import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { Command } from 'commander';
import type { Gateway } from '../gateway.js';
import { invalidInput } from '../platform/core/errors.js';
import { print, printList, run, table, type OutputOptions } from './output.js';
import { longJob } from './progress.js';

type WithGateway = <T>(body: (gw: Gateway) => Promise<T>) => Promise<T>;

/** A definition file: JSON by extension, YAML otherwise (YAML also reads JSON). */
async function readDefinitionFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw invalidInput(`cannot read ${file}: ${(err as Error).message}`);
  }
  const { parse: parseYaml } = await import('yaml');
  try {
    return extname(file).toLowerCase() === '.json' ? (JSON.parse(text) as unknown) : (parseYaml(text) as unknown);
  } catch (err) {
    // The yaml parser appends a multi-line excerpt; the first line already names the place.
    const reason = (err as Error).message.split('\n')[0] ?? '';
    throw invalidInput(`${file} is not valid ${extname(file).toLowerCase() === '.json' ? 'JSON' : 'YAML'}: ${reason}`);
  }
}

/** `objects define|list|show`: operator-defined dynamic objects of an org. */
export function registerObjectsCommands(program: Command, withGateway: WithGateway): void {
  const objects = program.command('objects');
  objects
    .command('define')
    .description('create or replace an object definition; a replacement is checked against existing rows first, then rewrites them in slices (progress on stderr); a redefinition cut short is finished first')
    .requiredOption('--org <slug>', 'org the object belongs to')
    .requiredOption('--file <path>', 'definition as JSON or YAML')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions & { org: string; file: string }) => {
      const definition = await readDefinitionFile(opts.file);
      const resume = 'rows rewritten so far are kept; run the same `gateway objects define` again to finish the redefinition';
      const result = await longJob('checking and rewriting rows', opts, resume, (tick) =>
        withGateway((gw) => gw.services.objects.define(opts.org, definition, (p) => tick(p.done, p.total))),
      );
      print(opts, result, (r) =>
        `${r.created ? 'defined' : 'redefined'} ${r.definition.key} v${r.definition.version} (${r.definition.fields.length} fields)` +
        (r.created ? '' : `; checked ${r.rows_checked} rows, rewrote ${r.rows_rewritten}`) +
        (r.rows_resumed > 0 ? `; first finished a redefinition cut short (${r.rows_resumed} rows)` : ''),
      );
    }));
  objects
    .command('list')
    .description("list an org's object definitions")
    .requiredOption('--org <slug>', 'org whose objects to list')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions & { org: string }) => {
      const list = await withGateway((gw) => gw.services.objects.listDefinitions(opts.org));
      printList(opts, 'objects', list, (l) =>
        table(
          l.map((d) => ({ ...d, write_scope: d.write_scope ?? '(read-only)', fields: d.fields.length })),
          ['key', 'label', 'read_scope', 'write_scope', 'fields', 'version'],
        ),
      );
    }));
  objects
    .command('show <key>')
    .description('one object definition in full (YAML; JSON with --json)')
    .requiredOption('--org <slug>', 'org the object belongs to')
    .option('--json', 'machine-readable output')
    .action(run(async (key: string, opts: OutputOptions & { org: string }) => {
      const shown = await withGateway((gw) => gw.services.objects.showDefinition(opts.org, key));
      const { stringify: toYaml } = await import('yaml');
      print(opts, shown, (s) => toYaml(s).trimEnd());
    }));
}

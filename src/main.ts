import { Command } from 'commander';
import { registerCommands } from './cli/commands.js';

const program = new Command()
  .name('gateway')
  .description('Integration gateway of the tire and equipment platform')
  .showHelpAfterError();
registerCommands(program);

await program.parseAsync(process.argv);

import { buildProgram } from './cli/program.js';

const program = await buildProgram(process.argv);
await program.parseAsync(process.argv);

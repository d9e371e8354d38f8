/** Entry point of bin/transcript-sync. */
import { main } from './program.js';

const code = await main(process.argv.slice(2));
process.exitCode = code;
// Every command closes what it opened; should a stray handle remain, do not hang the shell on it.
setTimeout(() => process.exit(code), 2_000).unref();

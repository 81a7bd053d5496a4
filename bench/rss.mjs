// Runs a memsim command line in this process and prints its peak RSS (KiB) on stderr at exit:
//   node bench/rss.mjs replay trace.csv -a bfc
import { main } from '../dist/cli/main.js';

process.exitCode = await main([process.argv[0], 'memsim', ...process.argv.slice(2)]);
process.on('exit', () => process.stderr.write(`maxRSS ${process.resourceUsage().maxRSS}\n`));

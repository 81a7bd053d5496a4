// Runs a memsim command line in this process and prints its peak RSS (KiB) and CPU time (user, µs)
// on stderr at exit:
//   node bench/rss.mjs replay trace.csv -a bfc
import { main } from '../dist/cli/main.js';

process.exitCode = await main([process.argv[0], 'memsim', ...process.argv.slice(2)]);
process.on('exit', () => {
  const u = process.resourceUsage();
  process.stderr.write(`maxRSS ${u.maxRSS}\ncpuUser ${u.userCPUTime}\n`);
});

import { TraceError } from '../../errors.js';
import type { TraceReader } from '../readers.js';
import { chooseAllocator, importLog } from './import.js';
import { LogReader } from './log-reader.js';
import { scanLines } from './scan.js';
import { sniffTfLog, TFLOG_READER_INFO } from './sniff.js';

/**
 * TensorFlow memory logs: the `__LOG_MEMORY__` lines that LogMemory (log_memory.cc) writes through
 * LOG(INFO) when `log_memory.cc` logs at verbosity 2, in a whole stderr capture (other lines are
 * ignored and counted). The file is streamed line by line; one allocator is imported
 * (`--allocator-name`, default the one with the most requested bytes) and its logged `ptr` and
 * `allocated_bytes` become the recorded history that `--allocator recorded` replays.
 */
export const tensorflowLogReader: TraceReader = {
  ...TFLOG_READER_INFO,
  sniff: sniffTfLog,
  read(src, builder, options) {
    const r = new LogReader(builder, options.allocatorName, options.lenient ?? false);
    const lines = scanLines(src, r);
    if (r.memoryLines === 0) {
      throw TraceError.at(
        src.file,
        undefined,
        `no __LOG_MEMORY__ line in ${lines} lines: TensorFlow writes them with TF_CPP_MIN_LOG_LEVEL=0 and TF_CPP_VMODULE=log_memory=2 ` +
          '(or TF_CPP_MIN_VLOG_LEVEL=2); capture its stderr',
      );
    }
    const choice = chooseAllocator(r, options.allocatorName, src.file);
    return importLog(r, choice, r.feed, builder, { lines });
  },
};

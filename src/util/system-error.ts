/**
 * Operating-system errors in plain words: users see "no such file or directory", not "ENOENT".
 */

const WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EFBIG: 'file too large',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  EIO: 'input/output error',
  ENXIO: 'no such device or address',
  ENODEV: 'no such device',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EEXIST: 'file exists',
  EBUSY: 'device or resource busy',
  EPIPE: 'the reader closed the pipe',
  EAGAIN: 'resource temporarily unavailable',
  EINVAL: 'invalid argument',
  ETXTBSY: 'text file busy',
  ESPIPE: 'cannot seek in a pipe',
  EBADF: 'the file descriptor is not open',
};

/** True for an error the operating system reported (it carries an errno code). */
export function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && /^E[A-Z0-9]+$/.test((e as NodeJS.ErrnoException).code as string);
}

/** What went wrong, in words: `no space left on device`. */
export function describeSystemError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as NodeJS.ErrnoException).code;
  if (code !== undefined && code in WORDS) return WORDS[code] as string;
  // Node writes "ECODE: words, syscall 'path'": keep the words.
  const m = /^E[A-Z0-9]+: ([^,]+)/.exec(e.message);
  return m ? (m[1] as string) : e.message;
}

/**
 * A file output written beside its place and renamed onto it once whole (see OutputFile's `replace`):
 * the file that was there stays as it was until then, whatever goes wrong meanwhile (an input found
 * bad half-way, a full disk). The new file takes the old one's permissions (and owner, where memsim
 * may give it); a link is followed, so the file it names is replaced and the link kept. A file with
 * other hard links, a device, a pipe, or a directory that takes no new file cannot be so replaced.
 */
import { fchmodSync, fchownSync, lstatSync, openSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A staging file, open, and the file it will replace. */
export interface Staging {
  fd: number;
  /** The staging file's path. */
  path: string;
  /** The path it is renamed to (a link's target: the real file). */
  target: string;
}

/** The file `target` names, when it can be replaced by a renamed file: where it is, and its mode and owner if it exists. */
function replaceable(target: string): { path: string; mode?: number; uid?: number; gid?: number } | undefined {
  let st;
  try {
    st = lstatSync(target);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? { path: target } : undefined;
  }
  let path = target;
  if (st.isSymbolicLink()) {
    try {
      path = realpathSync(target);
      st = statSync(path);
    } catch {
      return undefined; // a link to nothing, or a loop: written through as it is
    }
  }
  if (!st.isFile() || st.nlink > 1) return undefined;
  return { path, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
}

/** Opens a staging file for `target`, or returns undefined (nothing made, nothing changed) where it cannot be replaced so. */
export function openStaging(target: string): Staging | undefined {
  const place = replaceable(target);
  if (!place) return undefined;
  const path = join(dirname(place.path), `${basename(place.path)}.${process.pid}.partial`);
  let fd: number;
  try {
    fd = openSync(path, 'wx', place.mode === undefined ? 0o666 : 0o600);
  } catch {
    return undefined;
  }
  if (place.mode !== undefined) {
    try {
      fchmodSync(fd, place.mode);
    } catch {
      // the default mode, then
    }
    try {
      if (place.uid !== process.getuid?.() || place.gid !== process.getgid?.()) fchownSync(fd, place.uid as number, place.gid as number);
    } catch {
      // only a privileged user gives a file to another: the new file is this user's
    }
  }
  return { fd, path, target: place.path };
}

import { UsageError } from '../../errors.js';
import type { Snapshot } from './snapshot.js';

/** The device to import: the one asked for, else the one holding the most reserved memory. */
export function chooseDevice(snap: Snapshot, requested: number | undefined): { device: number; devices: number[] } {
  const reserved = new Map<number, number>();
  for (const s of snap.segments) reserved.set(s.device, (reserved.get(s.device) ?? 0) + s.totalBytes);
  snap.rawTraces.forEach((t, d) => {
    if (t.length > 0 && !reserved.has(d)) reserved.set(d, 0);
  });
  const devices = [...reserved.keys()].sort((a, b) => a - b);
  if (requested !== undefined) {
    if (!reserved.has(requested) && requested >= snap.rawTraces.length) {
      throw new UsageError(`--device ${requested}: this snapshot has ${devices.length > 0 ? `devices ${devices.join(', ')}` : 'no device with segments or trace entries'}`);
    }
    return { device: requested, devices };
  }
  let best = -1;
  for (const d of devices) if (best < 0 || (reserved.get(d) as number) > (reserved.get(best) as number)) best = d;
  if (best >= 0 && (reserved.get(best) as number) > 0) return { device: best, devices };
  const withEvents = snap.rawTraces.findIndex((t) => t.length > 0);
  return { device: withEvents >= 0 ? withEvents : (devices[0] ?? 0), devices };
}


import { GapTree } from '../util/gap-tree.js';

/** Where simulated device address spaces start (a typical CUDA virtual address). */
export const DEFAULT_DEVICE_BASE = 0x7f0000000000;
/** Size of the simulated virtual address space. */
const ADDRESS_SPACE_BYTES = 2 ** 46;

/**
 * The simulated device under every allocator: a capacity of physical memory and a virtual address
 * space. `malloc` fails when the capacity would be exceeded (like cudaMalloc's
 * cudaErrorMemoryAllocation); addresses are handed out first fit from the base, aligned as asked.
 */
export class SimDevice {
  readonly capacityBytes: number;
  readonly base: number;
  /** Physical bytes in use. */
  usedBytes = 0;
  allocCalls = 0;
  freeCalls = 0;
  private readonly space = new GapTree();

  /**
   * @param base lowest address handed out
   * @param spaceBytes size of the virtual address space from `base` (replays of recorded histories
   *   widen it so that every recorded address can be taken with {@link SimDevice.mallocAt})
   */
  constructor(capacityBytes: number, base = DEFAULT_DEVICE_BASE, spaceBytes = ADDRESS_SPACE_BYTES) {
    this.capacityBytes = capacityBytes;
    this.base = base;
    this.space.release(base, spaceBytes);
  }

  /** Bytes of capacity not in use. */
  get freeBytes(): number {
    return this.capacityBytes - this.usedBytes;
  }

  /**
   * Allocates `size` bytes at the lowest free address aligned to `align`.
   * @returns the address, or -1 when the capacity would be exceeded. A failed call is not counted.
   */
  malloc(size: number, align: number): number {
    if (this.usedBytes + size > this.capacityBytes) return -1;
    const addr = this.space.takeFirstFit(size, align);
    if (addr < 0) return -1;
    this.usedBytes += size;
    this.allocCalls++;
    return addr;
  }

  /** A device call of zero bytes (DeepRec's pools of a bin with no chunk): counted, holds nothing. */
  mallocNothing(): void {
    this.allocCalls++;
  }

  /**
   * Allocates exactly [address, address+size) (replaying a recorded placement).
   * @returns false when the capacity would be exceeded or the range is taken.
   */
  mallocAt(address: number, size: number): boolean {
    if (this.usedBytes + size > this.capacityBytes) return false;
    if (!this.space.takeAt(address, size)) return false;
    this.usedBytes += size;
    this.allocCalls++;
    return true;
  }

  /** Returns a range obtained from `malloc`/`mallocAt`. */
  free(address: number, size: number): void {
    this.space.release(address, size);
    this.usedBytes -= size;
    this.freeCalls++;
  }

  /**
   * Physical memory accounting without addresses (mapping pages into an already reserved virtual
   * range, as expandable segments do). Returns false when the capacity would be exceeded.
   */
  mapPhysical(size: number): boolean {
    if (this.usedBytes + size > this.capacityBytes) return false;
    this.usedBytes += size;
    this.allocCalls++;
    return true;
  }

  /** Releases physical memory mapped with {@link SimDevice.mapPhysical}. */
  unmapPhysical(size: number): void {
    this.usedBytes -= size;
    this.freeCalls++;
  }

  /** Reserves virtual address space only (no physical memory, not counted as a device call). */
  reserveAddressSpace(size: number, align: number): number {
    return this.space.takeFirstFit(size, align);
  }

  /** Reserves exactly [address, address+size) of virtual address space; false when it is taken. */
  reserveAddressSpaceAt(address: number, size: number): boolean {
    return this.space.takeAt(address, size);
  }

  /** Returns address space obtained from `reserveAddressSpace`/`reserveAddressSpaceAt`. */
  releaseAddressSpace(address: number, size: number): void {
    this.space.release(address, size);
  }
}

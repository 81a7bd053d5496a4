/**
 * LogMemory's special step ids (log_memory.h, `SpecialStepIds`): allocations made outside any
 * step carry one of these negative ids. memsim keeps them as steps of their own.
 */
export const SPECIAL_STEP_NAMES: Readonly<Record<number, string>> = {
  [-1]: 'constant folding',
  [-2]: 'op kernel construction',
  [-3]: 'external tensor allocation (C API)',
  [-4]: 'network buffer',
  [-5]: 'proto buffer (a GPU tensor copied into a proto)',
  [-6]: 'unknown step',
};

/** The lowest special step id. */
export const SPECIAL_STEP_MIN = -6;

/** How a step id reads in notes: `-2 (op kernel construction)`, `7`. */
export function describeStep(stepId: number): string {
  const name = SPECIAL_STEP_NAMES[stepId];
  return name ? `${stepId} (${name})` : String(stepId);
}

/** JSON reports: the report object itself, two-space indented, with a final newline. */
export function renderJson(report: unknown): string {
  return JSON.stringify(report, null, 2) + '\n';
}

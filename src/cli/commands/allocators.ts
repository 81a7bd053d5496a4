import { Command, Option } from 'commander';
import { z } from 'zod';
import { describeOptionKind, listAllocators } from '../../allocators/index.js';
import { renderJson } from '../../report/index.js';
import { mdTable } from '../../report/replay-markdown.js';
import { tableLines, wrap, wrapHanging } from '../../report/layout.js';
import { BEST, listPlanners } from '../../planners/index.js';
import { knownContenders, PLAN_PREFIX } from '../../sweep/contenders.js';
import { reportWidth, writeOutput } from '../io.js';
import { parseOptions, WIDTH_HELP, widthArg } from '../options.js';
import type { OptionSpec } from '../../allocators/options.js';

const schema = z.object({ format: z.enum(['text', 'json', 'markdown']).default('text'), width: widthArg.optional() });

function showDefault(spec: OptionSpec<unknown>): string {
  const v = spec.default;
  if (v === null) return 'none';
  if (spec.kind === 'bytes' && typeof v === 'number') {
    for (const [unit, m] of [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] as const) if (v >= m && v % m === 0) return `${v / m}${unit}`;
  }
  return String(v);
}

/** A `compare` row of an offline planner: the name compare takes, and what the strategy does. */
interface PlannerRow {
  name: string;
  summary: string;
}

/** The `plan:*` rows `compare` accepts, each with its strategy's description (its kinds joined). */
function plannerRows(): PlannerRow[] {
  const planners = listPlanners();
  return knownContenders()
    .filter((n) => n.startsWith(PLAN_PREFIX))
    .map((name) => {
      const strategy = name.slice(PLAN_PREFIX.length);
      const defs = planners.filter((p) => p.name === strategy);
      const summary =
        strategy === BEST
          ? 'every strategy below, then an exact search (after minimalloc) within its node budget; the smallest arena'
          : defs.map((d) => (defs.length > 1 ? `${d.kind}: ${d.description}` : d.description)).join('; ');
      return { name, summary };
    });
}

const PLANNERS_INTRO =
  'Offline planners, as `compare --allocators` rows: each packs the whole trace, known in advance, into one arena: a bound to ' +
  'measure the allocators against, not an allocator a program could use. Option: `alignment` (bytes, default 1), e.g. `plan:best[alignment=256]`.';

export function allocatorsCommand(): Command {
  return new Command('allocators')
    .description('list the allocators with their options, defaults and descriptions')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
    .option('--width <columns>', WIDTH_HELP)
    .addHelpText(
      'after',
      `
Examples:
  $ memsim allocators
  $ memsim allocators --format markdown
  $ memsim allocators --format json`,
    )
    .action((raw: Record<string, unknown>) => {
      const o = parseOptions(schema, raw);
      const defs = listAllocators();
      if (o.format === 'json') {
        writeOutput(
          renderJson(
            defs.map((d) => ({
              name: d.name,
              summary: d.summary,
              options: Object.entries(d.options).map(([k, s]) => ({ name: k, kind: s.kind, default: s.default, description: s.description, ...(s.values ? { values: s.values } : {}) })),
              tune: d.whatIf?.summary ?? null,
            })).concat(plannerRows().map((p) => ({ name: p.name, summary: p.summary, options: [{ name: 'alignment', kind: 'bytes', default: 1, description: 'offset alignment of every tensor in the arena' }], tune: null, planner: true }))),
          ),
          undefined,
        );
        return;
      }
      const out: string[] = [];
      const width = reportWidth(o.width, false);
      for (const d of defs) {
        const opts = Object.entries(d.options);
        if (o.format === 'markdown') {
          out.push(`### \`${d.name}\``, '', d.summary, '');
          if (opts.length > 0) out.push(mdTable(['option', 'kind', 'default', 'meaning'], opts.map(([k, s]) => [`\`${k}\``, describeOptionKind(s), `\`${showDefault(s)}\``, s.description])), '');
          out.push(`\`memsim tune\` tries: ${d.whatIf ? d.whatIf.summary : 'nothing (a reference row)'}.`, '');
        } else {
          out.push(...wrapHanging(`${d.name} — ${d.summary}`, width, '  '));
          if (opts.length > 0) {
            const columns = [{ head: 'option' }, { head: 'kind', wrap: 'words' as const }, { head: 'default', wrap: 'commas' as const }, { head: 'meaning', wrap: 'words' as const }];
            out.push(...tableLines(columns, opts.map(([k, s]) => [k, describeOptionKind(s), showDefault(s), s.description]), { width }));
          }
          out.push(...wrapHanging(`tune tries: ${d.whatIf ? d.whatIf.summary : 'nothing (a reference row)'}`, width, '  '), '');
        }
      }
      const planners = plannerRows();
      if (o.format === 'markdown') {
        out.push('### Offline planners in `compare`', '', PLANNERS_INTRO, '', mdTable(['name', 'what it does'], planners.map((p) => [`\`${p.name}\``, p.summary])), '');
      } else {
        out.push(...wrap(PLANNERS_INTRO.replace(/`/g, ''), width));
        out.push(...tableLines([{ head: 'name' }, { head: 'what it does', wrap: 'words', breakEarly: true }], planners.map((p) => [p.name, p.summary]), { width }), '');
      }
      writeOutput(out.join('\n').replace(/\n+$/, '') + '\n', undefined);
    });
}

export { renderJson } from './json.js';
export { renderReplayText } from './replay-text.js';
export { renderReplayMarkdown } from './replay-markdown.js';
export { renderCompareText } from './compare-text.js';
export { renderCompareMarkdown } from './compare-markdown.js';
export { renderCompareBench, compareBenchEntries, type BenchEntry } from './compare-bench.js';
export { type RenderOptions, formatCount } from './format.js';
export { renderPlanText, feasibilityOf, type Feasibility } from './plan-text.js';
export { renderPlanCsv, planCsvBytes, csvPlanOf } from './plan-csv.js';

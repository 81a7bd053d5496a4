/**
 * The page's own style: light and dark themes from the system setting (`prefers-color-scheme`),
 * and a print style (no controls, black on white, sections kept whole where they fit).
 * The charts read the colour variables when they are built, and are rebuilt when the theme changes.
 */
export const PAGE_CSS = String.raw`
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1d2125; --muted: #5d6570; --line: #d9dde3; --panel: #f5f6f8;
  --grid: rgba(0, 0, 0, 0.08); --accent: #1c64d8; --bad: #c92a2a; --good: #2b8a3e;
  --seg: #c5ccd6; --free-a: #eef0f3; --free-b: #aeb6c1; --agg-a: #8c96a3; --agg-b: #c9cfd7;
  --untagged: #7a8797; --tip-bg: #1d2125; --tip-fg: #f1f3f5;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #121417; --fg: #e4e7eb; --muted: #9aa3ae; --line: #2e343c; --panel: #1a1e23;
    --grid: rgba(255, 255, 255, 0.09); --accent: #6ea8ff; --bad: #ff6b6b; --good: #69db7c;
    --seg: #3a424d; --free-a: #1d2126; --free-b: #4a535f; --agg-a: #6b7583; --agg-b: #39414b;
    --untagged: #8d9aab; --tip-bg: #e4e7eb; --tip-fg: #121417;
  }
}
* { box-sizing: border-box; }
html { background: var(--bg); color: var(--fg); }
body { margin: 0 auto; max-width: 1280px; padding: 16px 24px 48px;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
h1 { font-size: 22px; margin: 8px 0 4px; }
h1 .sub { color: var(--muted); font-weight: normal; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12.5px; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: 8px 10px;
  overflow-x: auto; max-height: 480px; }
p { margin: 6px 0; }
.muted, .hint { color: var(--muted); }
.hint { font-size: 12.5px; }
.status { font-weight: 600; }
.status.bad { color: var(--bad); }
.status.good { color: var(--good); }
table { border-collapse: collapse; margin: 6px 0 10px; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
th { font-weight: 600; background: var(--panel); }
td.num, th.num { text-align: right; }
.table-wrap { overflow-x: auto; }
details { border: 1px solid var(--line); border-radius: 4px; margin: 6px 0; padding: 4px 10px; }
details > summary { cursor: pointer; font-weight: 600; }
button { font: inherit; color: var(--fg); background: var(--panel); border: 1px solid var(--line);
  border-radius: 4px; padding: 2px 10px; cursor: pointer; }
button:hover { border-color: var(--accent); }
select { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 2px 4px; }
.controls { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center; margin: 6px 0; }
.controls label { display: inline-flex; gap: 4px; align-items: center; }
.chart { position: relative; min-height: 40px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -2px; margin-right: 4px;
  border: 1px solid var(--line); }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12.5px; margin: 6px 0; }
.uplot { font-family: inherit; }
.u-legend { font-size: 12.5px; }
.u-legend .u-series > * { padding: 2px 4px; }
.mk { position: absolute; transform: translate(-50%, -50%); border: 0; padding: 0; margin: 0; background: none;
  width: 18px; height: 18px; line-height: 18px; text-align: center; font-size: 13px; cursor: pointer; z-index: 5; }
.mk:hover, .mk:focus { transform: translate(-50%, -50%) scale(1.35); outline: none; }
.mk-oom { color: var(--bad); font-weight: 700; }
.mk-pick { position: absolute; width: 2px; height: 100%; top: 0; transform: none; background: var(--accent); opacity: 0.7; pointer-events: none; }
#state-body { display: flex; flex-wrap: wrap; gap: 8px 20px; align-items: flex-start; }
#state-main { flex: 1 1 620px; min-width: 0; }
#state-holders { flex: 0 1 460px; min-width: 0; }
#state-holders h3 { margin-top: 0; }
#state-holders table { font-size: 12.5px; width: 100%; }
#state-holders td.num { white-space: nowrap; }
#state-holders td.key { overflow-wrap: anywhere; font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12px; }
#state-holders tr.holder { cursor: pointer; }
#state-holders tr.holder:hover, #state-holders tr.hl { background: var(--panel); outline: 2px solid var(--accent); outline-offset: -2px; }
#state-holders tr.pinned td.key { font-weight: 700; }
#state-holders tr.other td { color: var(--muted); }
#holder-stack { font-size: 11.5px; white-space: pre-wrap; word-break: break-all; }
#state-map-wrap { position: relative; }
#state-map { display: block; width: 100%; }
#state-tip { position: absolute; pointer-events: none; background: var(--tip-bg); color: var(--tip-fg); padding: 6px 8px;
  border-radius: 4px; font-size: 12px; line-height: 1.4; max-width: 420px; z-index: 10; white-space: nowrap; }
#state-tip[hidden] { display: none; }
#state-head { font-weight: 600; }
.note { font-size: 12.5px; color: var(--muted); }
.step-chart { margin: 4px 0 14px; }
@media print {
  :root { --bg: #ffffff; --fg: #000000; --muted: #444444; --line: #bbbbbb; --panel: #f3f3f3; }
  html, body { background: #ffffff !important; color: #000000 !important; }
  body { max-width: none; padding: 0; font-size: 11px; }
  .controls, .hint, #state-tip, .mk-pick, button { display: none !important; }
  section, table, pre, .chart, #state-map-wrap { break-inside: avoid; }
  h2 { break-after: avoid; }
  pre { max-height: none; white-space: pre-wrap; overflow: visible; }
  details { border: 0; padding: 0; }
  .table-wrap { overflow: visible; }
}
`;

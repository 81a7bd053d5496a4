/**
 * The page's script, the holders part: beside the allocator state, who holds the memory at that
 * moment (the state's `holders`, see `src/sim/visual-holders.ts`). Hovering or focusing a row
 * lights up its blocks in the state view (the others are dimmed); clicking pins it and shows the
 * stack of the group's largest block, when the trace records stacks.
 */
export const CLIENT_HOLDERS_JS = String.raw`
window.memsim.parts.push(function (M, D) {
  'use strict';
  var box = document.getElementById('holders-table'), caption = document.getElementById('holders-caption');
  var stackBox = document.getElementById('holder-stack');
  var rows = [];

  function cell(tr, text, cls) {
    var td = document.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }

  function shortKey(k) {
    return k.split(' ← ').map(function (f) { return f.replace(/^.*[\/\\]([^\/\\]+[\/\\][^\/\\]+)$/, '…/$1'); }).join(' ← ');
  }

  function mark() {
    var S = M.state, on = S.highlight;
    rows.forEach(function (tr, i) {
      tr.classList.toggle('hl', on === i);
      tr.classList.toggle('pinned', S.pinned === i);
    });
  }

  M.highlight = function (i) {
    M.state.highlight = i === undefined ? null : i;
    mark();
    M.drawState();
  };

  function showStack(run, h) {
    if (!h || !h.frames || h.frames.length === 0) { stackBox.hidden = true; stackBox.textContent = ''; return; }
    stackBox.textContent = 'stack of its largest block, innermost first:\n' + h.frames.join('\n');
    stackBox.hidden = false;
  }

  M.renderHolders = function (run, st) {
    var S = M.state;
    S.highlight = null; S.pinned = null;
    box.textContent = ''; rows = [];
    showStack(run, null);
    var held = st && st.holders, a = run && run.attribution;
    if (!held || !a) { caption.textContent = 'Not computed for this moment.'; return; }
    var m = held.moment;
    caption.textContent = 'Live ' + M.fmtBytes(m.liveBytes) + ' in ' + M.fmtCount(m.liveCount) + ' allocation' + (m.liveCount === 1 ? '' : 's') +
      ', grouped by ' + a.groupBy + (a.stackDepth ? ' (' + a.stackDepth + ' frames)' : '') + '. Hover a row to light up its blocks; click to pin it' +
      (m.top.some(function (h) { return h.frames && h.frames.length > 0; }) ? ' and see its stack.' : '.');
    var table = document.createElement('table'), thead = document.createElement('thead'), hr = document.createElement('tr');
    [a.groupBy, 'bytes', 'share', 'count', 'largest'].forEach(function (h, k) {
      var th = document.createElement('th');
      th.textContent = h;
      if (k > 0) th.className = 'num';
      hr.appendChild(th);
    });
    thead.appendChild(hr); table.appendChild(thead);
    var tbody = document.createElement('tbody');
    m.top.forEach(function (h, i) {
      var tr = document.createElement('tr');
      tr.tabIndex = 0;
      tr.className = 'holder';
      tr.dataset.holder = String(i);
      // Paths show their last two parts here; the whole key (and stack) is the row's tooltip.
      cell(tr, shortKey(h.key), 'key');
      cell(tr, M.fmtBytes(h.bytes), 'num');
      cell(tr, (h.share * 100).toFixed(1) + '%', 'num');
      cell(tr, M.fmtCount(h.count), 'num');
      cell(tr, M.fmtBytes(h.largestBytes), 'num');
      tr.title = h.key + (h.frames && h.frames.length > 0 ? '\n\nstack of its largest block:\n' + h.frames.join('\n') : '');
      tr.addEventListener('mouseenter', function () { M.highlight(i); });
      tr.addEventListener('focus', function () { M.highlight(i); });
      tr.addEventListener('mouseleave', function () { M.highlight(M.state.pinned); });
      tr.addEventListener('blur', function () { M.highlight(M.state.pinned); });
      tr.addEventListener('click', function () {
        M.state.pinned = M.state.pinned === i ? null : i;
        showStack(run, M.state.pinned === null ? null : h);
        M.highlight(M.state.pinned === null ? i : M.state.pinned);
      });
      tbody.appendChild(tr);
      rows.push(tr);
    });
    var rest = m.groups - m.top.length;
    if (rest > 0) {
      var tr = document.createElement('tr');
      tr.className = 'other';
      cell(tr, 'everything else (' + M.fmtCount(rest) + ' group' + (rest === 1 ? '' : 's') + ')', 'key');
      cell(tr, M.fmtBytes(m.otherBytes), 'num');
      cell(tr, (m.otherShare * 100).toFixed(1) + '%', 'num');
      cell(tr, M.fmtCount(m.otherCount), 'num');
      cell(tr, M.fmtBytes(m.otherLargestBytes), 'num');
      tbody.appendChild(tr);
    }
    table.appendChild(tbody);
    box.appendChild(table);
  };

  /** Indices of the pieces of the shown state that belong to the lit group (for tests and the drawing). */
  M.highlightedPieces = function () {
    var S = M.state, run = D.runs[S.run], st = run ? run.states[S.index] : null, out = [];
    if (!st || !st.holders || S.highlight === null) return out;
    st.holders.piece.forEach(function (g, j) { if (g === S.highlight) out.push(j); });
    return out;
  };
});
`;

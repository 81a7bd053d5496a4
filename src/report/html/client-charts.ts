/**
 * The page's script, part 2 of 3: the timeline (live bytes of the trace, then reserved, allocated
 * and served live bytes per allocator, and the capacity), its OOM and peak markers, picking a
 * point, and the per-step peak bars. Drawn with uPlot.
 */
export const CLIENT_CHARTS_JS = String.raw`
window.memsim.parts.push(function (M, D) {
  'use strict';
  M.xMode = 'event';

  function xLabel(v) {
    if (v === null || v === undefined) return '–';
    return M.xMode === 'step' ? 'step ' + M.stepAt(Math.round(v)) : M.fmtCount(v);
  }

  /** Every series on one x: the union of the sampled events, each curve held until its next sample. */
  function mergeTimeline() {
    var all = D.demand.event.slice();
    D.runs.forEach(function (r) { for (var i = 0; i < r.timeline.event.length; i++) all.push(r.timeline.event[i]); });
    all.sort(function (a, b) { return a - b; });
    var xs = [];
    for (var i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) xs.push(all[i]);
    function hold(evs, vals) {
      var out = new Array(xs.length), j = -1, last = evs.length > 0 ? evs[evs.length - 1] : -1;
      for (var i = 0; i < xs.length; i++) {
        while (j + 1 < evs.length && evs[j + 1] <= xs[i]) j++;
        out[i] = j < 0 || xs[i] > last ? null : vals[j];
      }
      return out;
    }
    var cols = [xs, hold(D.demand.event, D.demand.live)];
    D.runs.forEach(function (r) {
      var t = r.timeline;
      cols.push(hold(t.event, t.reserved), hold(t.event, t.allocated), hold(t.event, t.live));
    });
    return cols;
  }
  var merged = null;

  // Byte axes step by powers of two (and three times them), so ticks fall on 2 GiB, 512 MiB, …
  var BYTE_INCRS = [];
  for (var k = 0; k < 52; k++) { BYTE_INCRS.push(Math.pow(2, k)); if (k >= 1) BYTE_INCRS.push(3 * Math.pow(2, k - 1)); }
  BYTE_INCRS.sort(function (a, b) { return a - b; });
  // Events are whole: ticks 1, 2, 5, 10, … apart, never between two events.
  var EVENT_INCRS = [];
  for (var e = 0; e < 16; e++) EVENT_INCRS.push(Math.pow(10, e), 2 * Math.pow(10, e), 5 * Math.pow(10, e));
  function bytesAxis(th) {
    return { stroke: th.muted, grid: { stroke: th.grid, width: 1 }, ticks: { stroke: th.grid, width: 1 }, size: 72, incrs: BYTE_INCRS,
      values: function (u, splits) { return splits.map(M.fmtAxisBytes); } };
  }

  function markers(u) {
    var over = u.over, list = [];
    D.runs.forEach(function (run, r) {
      run.ooms.forEach(function (o, k) {
        list.push({ cls: 'mk mk-oom', text: '✕', x: o.event, y: o.reservedBytes + o.sizeBytes > 0 ? o.reservedBytes : 0,
          title: run.name + ': OOM ' + (k + 1) + ' at event ' + M.fmtCount(o.event) + ', ' + M.fmtBytes(o.sizeBytes) + ' requested (' + o.kind + ')',
          run: r, oom: k });
      });
      if (run.summary.peakReservedEvent >= 0) {
        list.push({ cls: 'mk mk-peak', text: '▲', x: run.summary.peakReservedEvent, y: run.summary.peakReservedBytes, color: M.runColor(r),
          title: run.name + ': peak reserved ' + M.fmtBytes(run.summary.peakReservedBytes) + ' at event ' + M.fmtCount(run.summary.peakReservedEvent),
          run: r, peak: true });
      }
    });
    var nodes = list.map(function (m) {
      var b = document.createElement('button');
      b.type = 'button';
      b.className = m.cls;
      b.textContent = m.text;
      b.title = m.title;
      b.setAttribute('aria-label', m.title);
      if (m.color) b.style.color = m.color;
      b.dataset.run = String(m.run);
      if (m.oom !== undefined) b.dataset.oom = String(m.oom);
      b.addEventListener('mousedown', function (e) { e.stopPropagation(); });
      b.addEventListener('click', function (e) {
        e.stopPropagation();
        if (m.oom !== undefined) M.showOom(m.run, m.oom);
        else M.showState(m.run, M.peakState(m.run), null);
      });
      over.appendChild(b);
      return { m: m, b: b };
    });
    var pickLine = document.createElement('div');
    pickLine.className = 'mk-pick';
    pickLine.hidden = true;
    over.appendChild(pickLine);
    return { nodes: nodes, pickLine: pickLine };
  }

  function placeMarkers(u) {
    var mk = u.memsimMarkers;
    if (!mk) return;
    var w = u.over.clientWidth, h = u.over.clientHeight;
    mk.nodes.forEach(function (n) {
      var x = u.valToPos(n.m.x, 'x'), y = u.valToPos(n.m.y, 'y');
      var shown = x >= -1 && x <= w + 1;
      n.b.hidden = !shown;
      if (shown) { n.b.style.left = x + 'px'; n.b.style.top = Math.max(8, Math.min(h - 8, y)) + 'px'; }
    });
    if (M.pickedEvent !== null && M.pickedEvent !== undefined) {
      var px = u.valToPos(M.pickedEvent, 'x');
      mk.pickLine.hidden = !(px >= 0 && px <= w);
      mk.pickLine.style.left = px + 'px';
    } else mk.pickLine.hidden = true;
  }
  M.placeMarkers = function () { if (M.charts.timeline) placeMarkers(M.charts.timeline); };

  function buildTimeline(th) {
    var host = document.getElementById('chart-timeline');
    host.textContent = '';
    if (!merged) merged = mergeTimeline();
    var dataMax = 0;
    for (var c = 1; c < merged.length; c++) for (var i = 0; i < merged[c].length; i++) if (merged[c][i] > dataMax) dataMax = merged[c][i];
    var cap = D.capacityBytes;
    var cols = merged.slice();
    var series = [
      { label: 'event', value: function (u, v) { return xLabel(v); } },
      { label: 'live (trace)', stroke: th.fg, width: 1.5, value: function (u, v) { return M.fmtBytes(v); } }
    ];
    D.runs.forEach(function (run, r) {
      var color = M.runColor(r);
      series.push({ label: run.name + ' reserved', stroke: color, width: 2, value: function (u, v) { return M.fmtBytes(v); } });
      // With several allocators, their allocated lines would hide the reserved ones: shown on demand.
      series.push({ label: run.name + ' allocated', stroke: color, width: 1, dash: [5, 4], show: D.runs.length === 1, value: function (u, v) { return M.fmtBytes(v); } });
      // A run's served live bytes differ from the trace's only after requests it dropped
      // (--on-oom continue), and then little: shown on demand.
      series.push({ label: run.name + ' live', stroke: color, width: 1, dash: [1, 3], show: false, value: function (u, v) { return M.fmtBytes(v); } });
    });
    if (cap !== null) {
      cols.push(merged[0].map(function () { return cap; }));
      // Far above the curves, the capacity would flatten them: it starts hidden (the legend shows it).
      series.push({ label: 'capacity', stroke: th.bad, width: 1.5, dash: [8, 5], show: cap <= dataMax * 3, value: function () { return M.fmtBytes(cap); } });
    }
    var opts = {
      width: M.width(host), height: 360,
      cursor: { drag: { x: true, y: false, setScale: true }, points: { show: false } },
      scales: { x: { time: false }, y: { range: function (u, min, max) { return [0, Math.max(max, 1) * 1.05]; } } },
      axes: [
        { stroke: th.muted, grid: { stroke: th.grid, width: 1 }, ticks: { stroke: th.grid, width: 1 }, incrs: EVENT_INCRS,
          values: function (u, splits) { return splits.map(xLabel); } },
        bytesAxis(th)
      ],
      series: series,
      hooks: {
        ready: [function (u) { u.memsimMarkers = markers(u); placeMarkers(u); }],
        setScale: [function (u, key) { if (key === 'x') placeMarkers(u); }],
        setSize: [function (u) { placeMarkers(u); }],
        draw: [function (u) { placeMarkers(u); }]
      }
    };
    var u = new uPlot(opts, cols, host);
    // A click that is not a drag picks a moment.
    var down = null;
    u.over.addEventListener('mousedown', function (e) { down = [e.clientX, e.clientY]; });
    u.over.addEventListener('click', function (e) {
      if (!down || Math.abs(e.clientX - down[0]) > 3 || Math.abs(e.clientY - down[1]) > 3) return;
      var rect = u.over.getBoundingClientRect();
      M.pick(Math.max(0, Math.round(u.posToVal(e.clientX - rect.left, 'x'))));
    });
    M.charts.timeline = u;
  }

  function buildSteps(th) {
    var host = document.getElementById('step-charts');
    host.textContent = '';
    M.charts.steps = [];
    D.runs.forEach(function (run, r) {
      var s = run.steps, color = M.runColor(r);
      var box = document.createElement('div');
      box.className = 'step-chart';
      var h = document.createElement('h3');
      h.textContent = run.name + (s.groupSize > 1 ? ' (each bar: the highest of ' + s.groupSize + ' consecutive steps)' : '');
      box.appendChild(h);
      host.appendChild(box);
      if (s.step.length === 0) { box.appendChild(document.createTextNode('no steps')); return; }
      var fmt = function (u, v) { return M.fmtBytes(v); };
      var u = new uPlot({
        width: M.width(host), height: 200,
        cursor: { drag: { x: true, y: false, setScale: true }, points: { show: false } },
        // Half a bar of room at each end, so that the first and last bars are whole.
        scales: { x: { time: false, range: function (u, min, max) { var pad = s.step.length > 1 ? (max - min) / (s.step.length - 1) / 2 : 1; return [min - pad, max + pad]; } },
          y: { range: function (u, min, max) { return [0, Math.max(max, 1) * 1.05]; } } },
        axes: [{ stroke: th.muted, grid: { show: false }, ticks: { stroke: th.grid } }, bytesAxis(th)],
        series: [
          { label: 'step', value: function (u, v) { return v === null ? '–' : M.fmtCount(v); } },
          { label: 'peak reserved', stroke: color, fill: color + '55', width: 1, paths: uPlot.paths.bars({ size: [0.8, 48] }), points: { show: false }, value: fmt },
          { label: 'peak allocated', stroke: color, width: 1, dash: [5, 4], points: { show: false }, value: fmt },
          { label: 'peak live', stroke: th.fg, width: 1.5, points: { show: false }, value: fmt }
        ]
      }, [s.step, s.reserved, s.allocated, s.live], box);
      M.charts.steps.push(u);
    });
  }

  M.buildCharts = function () {
    if (M.charts.timeline) M.charts.timeline.destroy();
    M.charts.steps.forEach(function (u) { u.destroy(); });
    var th = M.theme();
    buildTimeline(th);
    buildSteps(th);
  };

  M.resizeCharts = function (width) {
    var all = [M.charts.timeline].concat(M.charts.steps);
    all.forEach(function (u) {
      if (!u) return;
      var w = width || M.width(u.root.parentElement);
      u.setSize({ width: w, height: u.height });
    });
  };

  function wireControls() {
    var radios = document.querySelectorAll('input[name="x-mode"]');
    for (var k = 0; k < radios.length; k++) {
      radios[k].addEventListener('change', function (e) {
        M.xMode = e.target.value;
        if (M.charts.timeline) M.charts.timeline.redraw(false, true);
      });
    }
    document.getElementById('zoom-reset').addEventListener('click', function () {
      var u = M.charts.timeline;
      if (u) u.setScale('x', { min: u.data[0][0], max: u.data[0][u.data[0].length - 1] });
    });
  }
  wireControls();
});
`;

/**
 * The page's script, part 1 of 3 (plain ES2019 for the browser, kept as text: no backticks and no
 * `${` inside, since it lives in a template literal). It defines `window.memsim`: formatting
 * helpers, theme colours, the nearest-state lookup, and the start-up, which decompresses the
 * embedded data (gzip, base64) with the browser's own DecompressionStream, then runs the parts that
 * `client-charts.ts` and `client-state.ts` register in `memsim.parts`. `window.memsim` is also what
 * the browser tests read (charts, the state shown, readiness).
 */
export const CLIENT_CORE_JS = String.raw`
(function () {
  'use strict';
  var M = (window.memsim = { parts: [] });
  M.data = null;
  M.charts = { timeline: null, steps: [] };
  M.ready = false;

  var IEC = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  M.fmtBytes = function (b) {
    if (b === null || b === undefined || !isFinite(b)) return '–';
    var v = Math.abs(b), i = 0;
    // As the text reports: whole bytes below 1 KiB, never 1000 or more of a unit once rounded.
    while ((i === 0 ? v >= 1024 : Number(v.toFixed(2)) >= 1000) && i < IEC.length - 1) { v /= 1024; i++; }
    var t = i === 0 ? v + ' B' : v.toFixed(2) + ' ' + IEC[i];
    return b < 0 ? '-' + t : t;
  };
  // Axis labels: fewer digits than the legend.
  M.fmtAxisBytes = function (b) {
    if (b === null || b === undefined) return '';
    var v = Math.abs(b), i = 0;
    while ((i === 0 ? v >= 1024 : v >= 999.5) && i < IEC.length - 1) { v /= 1024; i++; }
    var d = i === 0 || v >= 100 ? 0 : v >= 10 ? 1 : 2;
    return (b < 0 ? '-' : '') + v.toFixed(d) + ' ' + IEC[i];
  };
  M.fmtCount = function (n) {
    var s = String(Math.round(Math.abs(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return n < 0 ? '-' + s : s;
  };
  M.hex = function (a) { return '0x' + a.toString(16); };
  M.esc = function (s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  };
  /** First index i with xs[i] > v (xs ascending). */
  M.upper = function (xs, v) {
    var lo = 0, hi = xs.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (xs[mid] <= v) lo = mid + 1; else hi = mid; }
    return lo;
  };
  /** The step that event e belongs to, from the step marks. */
  M.stepAt = function (e) {
    var sm = M.data.stepMarks, k = M.upper(sm.event, e) - 1;
    return k >= 0 ? sm.step[k] : (sm.step.length > 0 ? sm.step[0] : 0);
  };

  // Allocator colours, readable on white and on the dark background.
  var RUN_COLORS = ['#1f77d0', '#e8590c', '#2f9e44', '#ae3ec9', '#d6336c', '#0c8599', '#b08800', '#5c7cfa'];
  M.runColor = function (r) { return RUN_COLORS[r % RUN_COLORS.length]; };
  M.cssVar = function (name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim(); };
  // Paper is white whatever the screen's theme: printing draws with the light colours.
  var PRINT_THEME = {
    fg: '#000000', muted: '#444444', grid: 'rgba(0, 0, 0, 0.12)', bad: '#c92a2a', seg: '#c5ccd6', freeA: '#ffffff',
    freeB: '#9aa3ad', aggA: '#8c96a3', aggB: '#d5dae0', untagged: '#7a8797', bg: '#ffffff', accent: '#1c64d8'
  };
  M.printing = false;
  M.theme = function () {
    if (M.printing) return PRINT_THEME;
    return {
      fg: M.cssVar('--fg'), muted: M.cssVar('--muted'), grid: M.cssVar('--grid'), bad: M.cssVar('--bad'),
      seg: M.cssVar('--seg'), freeA: M.cssVar('--free-a'), freeB: M.cssVar('--free-b'),
      aggA: M.cssVar('--agg-a'), aggB: M.cssVar('--agg-b'), untagged: M.cssVar('--untagged'), bg: M.cssVar('--bg'),
      accent: M.cssVar('--accent')
    };
  };

  /** The captured state of run r nearest to event e (ties: the earlier one). */
  M.nearestState = function (r, e) {
    var states = M.data.runs[r].states, best = -1, dist = Infinity;
    for (var k = 0; k < states.length; k++) {
      var d = Math.abs(states[k].event - e);
      if (d < dist) { dist = d; best = k; }
    }
    return best;
  };
  M.peakState = function (r) {
    var states = M.data.runs[r].states;
    for (var k = 0; k < states.length; k++) if (states[k].reason === 'peak-reserved') return k;
    return states.length > 0 ? 0 : -1;
  };
  M.realOomState = function (r, k) {
    var states = M.data.runs[r].states;
    for (var j = 0; j < states.length; j++) if (states[j].realOom === k) return j;
    return -1;
  };
  M.oomState = function (r, oom) {
    var states = M.data.runs[r].states;
    for (var k = 0; k < states.length; k++) if (states[k].reason === 'oom' && states[k].oom === oom) return k;
    return -1;
  };

  M.width = function (el) { return Math.max(320, Math.floor(el.clientWidth || el.parentElement.clientWidth || 800)); };

  /** The embedded data: base64 of gzipped JSON (a quarter of the bytes of the JSON, or less). */
  function loadData() {
    var el = document.getElementById('memsim-data');
    var bin = atob(el.textContent.replace(/\s+/g, ''));
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text().then(JSON.parse);
  }

  function fail(message) {
    var p = document.createElement('p');
    p.className = 'status bad';
    p.textContent = message;
    var at = document.getElementById('timeline');
    at.insertBefore(p, at.firstChild.nextSibling);
    document.documentElement.setAttribute('data-error', message);
  }

  M.start = function () {
    if (typeof DecompressionStream === 'undefined') {
      fail('This browser cannot draw the charts (it has no DecompressionStream; Chrome 80, Firefox 113 and Safari 16.4 have it). The tables work without.');
      return;
    }
    performance.mark('memsim:start');
    loadData().then(function (data) {
      performance.mark('memsim:data');
      M.data = data;
      M.parts.forEach(function (part) { part(M, data); });
      boot();
      performance.mark('memsim:drawn');
    }).catch(function (e) { fail('The report could not be drawn: ' + e); throw e; });
  };

  function boot() {
    M.initState();
    M.buildCharts();
    var runs = M.data.runs;
    var first = -1;
    for (var r = 0; r < runs.length && first < 0; r++) if (runs[r].ooms.length > 0 && M.oomState(r, 0) >= 0) first = r;
    if (first >= 0) M.showOom(first, 0);
    else if (runs.length > 0) M.showState(0, M.peakState(0), null);
    var resizeTimer = 0;
    window.addEventListener('resize', function () {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(function () { M.resizeCharts(); M.drawState(); }, 120);
    });
    if (window.matchMedia) {
      window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', function () { M.buildCharts(); M.drawState(); });
    }
    window.addEventListener('beforeprint', function () {
      // Options and statistics print open; OOMs print as they are on screen (native dumps can be
      // thousands of lines: the first OOM of each allocator is open, the others show their summary).
      var ds = document.querySelectorAll('details:not(.oom)');
      for (var k = 0; k < ds.length; k++) ds[k].open = true;
      M.printing = true;
      M.buildCharts();
      M.resizeCharts(680);
      M.drawState(680);
    });
    window.addEventListener('afterprint', function () {
      M.printing = false;
      M.buildCharts();
      M.drawState();
    });
    requestAnimationFrame(function () {
      requestAnimationFrame(function () {
        M.ready = true;
        M.readyMs = performance.now();
        document.documentElement.setAttribute('data-ready', '1');
      });
    });
  }
})();
`;

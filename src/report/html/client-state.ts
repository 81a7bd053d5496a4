/**
 * The page's script, part 3 of 3: an allocator's state at one moment, drawn to scale on a canvas.
 * Segments are laid end to end in address order and wrapped into rows of a power-of-two number of
 * bytes; blocks are coloured by tag or by size, free blocks hatched, aggregates of small blocks
 * cross-hatched; hovering shows a block's address, sizes, tag and allocation. The state format is
 * `CompactState` of `src/sim/visual-state.ts`.
 */
export const CLIENT_STATE_JS = String.raw`
window.memsim.parts.push(function (M, D) {
  'use strict';
  var SEG = 8, PIECE = 5, FREE = -1, AGG = -2, UNKNOWN = -3;
  var ROW_H = 18, ROW_GAP = 4, LABEL_W = 76, MAX_ROWS = 32;
  var S = (M.state = { run: -1, index: -1, color: 'tag', picked: null, layout: null, highlight: null, pinned: null });

  function decode(st) {
    if (st._d) return st._d;
    var segs = st.segments, n = segs.length / SEG, segStart = new Float64Array(n + 1), segAddr = new Float64Array(n), pos = 0, addrEnd = 0;
    for (var k = 0; k < n; k++) {
      segStart[k] = pos; pos += segs[k * SEG + 1];
      // Addresses are stored relative to the previous entry's end (see CompactState).
      segAddr[k] = addrEnd + segs[k * SEG];
      addrEnd = segAddr[k] + segs[k * SEG + 1];
    }
    segStart[n] = pos;
    var p = st.pieces, m = p.length / PIECE, pStart = new Float64Array(m), end = 0;
    for (var j = 0; j < m; j++) { var s = end + p[j * PIECE]; pStart[j] = s; end = s + p[j * PIECE + 1]; }
    st._d = { n: n, m: m, segStart: segStart, segAddr: segAddr, pStart: pStart, total: pos };
    return st._d;
  }

  function hashHue(s) {
    var h = 2166136261;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    return (h >>> 0) % 360;
  }
  var dark = function () { return !M.printing && window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches; };
  function tagColor(t) {
    return 'hsl(' + hashHue(D.tags[t]) + ', 62%, ' + (dark() ? '58%' : '50%') + ')';
  }
  // Size ramp, small to large: light yellow to deep purple (after viridis, reversed for contrast).
  var RAMP = [[253, 231, 37], [94, 201, 98], [33, 145, 140], [59, 82, 139], [68, 1, 84]];
  function rampColor(f) {
    f = Math.max(0, Math.min(1, f)) * (RAMP.length - 1);
    var i = Math.min(RAMP.length - 2, Math.floor(f)), t = f - i, a = RAMP[i], b = RAMP[i + 1];
    return 'rgb(' + Math.round(a[0] + (b[0] - a[0]) * t) + ',' + Math.round(a[1] + (b[1] - a[1]) * t) + ',' + Math.round(a[2] + (b[2] - a[2]) * t) + ')';
  }
  function hatch(ctx, a, b, dense) {
    var c = document.createElement('canvas');
    c.width = c.height = 8;
    var g = c.getContext('2d');
    g.fillStyle = a; g.fillRect(0, 0, 8, 8);
    g.strokeStyle = b; g.lineWidth = 1.5;
    g.beginPath(); g.moveTo(0, 8); g.lineTo(8, 0); g.moveTo(-2, 2); g.lineTo(2, -2); g.moveTo(6, 10); g.lineTo(10, 6);
    if (dense) { g.moveTo(0, 0); g.lineTo(8, 8); }
    g.stroke();
    return ctx.createPattern(c, 'repeat');
  }

  function momentLabel(st) {
    if (st.realOom !== undefined) return "the real run's OOM · before event " + M.fmtCount(st.event + 1);
    if (st.reason === 'oom') return 'OOM ' + (st.oom + 1) + ' · event ' + M.fmtCount(st.event);
    if (st.reason === 'peak-reserved') return 'peak reserved · event ' + M.fmtCount(st.event);
    if (st.reason === 'peak-live') return 'peak live · event ' + M.fmtCount(st.event);
    return 'event ' + M.fmtCount(st.event) + ' (step ' + st.step + ')';
  }

  var runSel = document.getElementById('state-run'), momentSel = document.getElementById('state-moment');
  function fillMoments(r) {
    momentSel.textContent = '';
    D.runs[r].states.forEach(function (st, k) {
      var o = document.createElement('option');
      o.value = String(k);
      o.textContent = momentLabel(st);
      momentSel.appendChild(o);
    });
  }

  M.initState = function () {
    D.runs.forEach(function (run, r) {
      var o = document.createElement('option');
      o.value = String(r);
      o.textContent = run.name;
      runSel.appendChild(o);
    });
    runSel.addEventListener('change', function () {
      var r = Number(runSel.value);
      M.showState(r, S.picked !== null ? M.nearestState(r, S.picked) : M.peakState(r), S.picked);
    });
    momentSel.addEventListener('change', function () { M.showState(S.run, Number(momentSel.value), null); });
    var radios = document.querySelectorAll('input[name="state-color"]');
    for (var k = 0; k < radios.length; k++) radios[k].addEventListener('change', function (e) { S.color = e.target.value; M.drawState(); });
    var canvas = document.getElementById('state-map');
    canvas.addEventListener('mousemove', hover);
    canvas.addEventListener('mouseleave', function () { document.getElementById('state-tip').hidden = true; });
    var realButtons = document.querySelectorAll('button.show-real-oom');
    for (var rb = 0; rb < realButtons.length; rb++) {
      realButtons[rb].addEventListener('click', function (e) {
        var r = Number(e.currentTarget.dataset.run), k = M.realOomState(r, Number(e.currentTarget.dataset.realOom));
        if (k >= 0) M.showState(r, k, null);
        document.getElementById('state').scrollIntoView();
      });
    }
    var buttons = document.querySelectorAll('button.show-oom');
    for (var b = 0; b < buttons.length; b++) {
      buttons[b].addEventListener('click', function (e) {
        M.showOom(Number(e.currentTarget.dataset.run), Number(e.currentTarget.dataset.oom));
        document.getElementById('state').scrollIntoView();
      });
    }
  };

  M.pick = function (event) {
    var r = S.run >= 0 ? S.run : 0;
    if (!D.runs[r]) return;
    M.showState(r, M.nearestState(r, event), event);
  };
  M.showOom = function (r, oom) {
    var k = M.oomState(r, oom);
    if (k >= 0) M.showState(r, k, null);
  };

  M.showState = function (r, k, picked) {
    var run = D.runs[r];
    if (!run) return;
    if (S.run !== r) fillMoments(r);
    S.run = r; S.index = k; S.picked = picked === undefined ? null : picked;
    runSel.value = String(r);
    var head = document.getElementById('state-head'), note = document.getElementById('state-note');
    var st = run.states[k];
    M.pickedEvent = st ? (S.picked !== null ? S.picked : st.event) : null;
    M.placeMarkers();
    if (M.renderHolders) M.renderHolders(run, st);
    if (!st) { head.textContent = run.name + ': no state captured'; note.textContent = ''; M.drawState(); return; }
    momentSel.value = String(k);
    var t = st.totals, when;
    if (st.realOom !== undefined && run.realRunOoms) {
      var ro = run.realRunOoms[st.realOom];
      when = "when the real run's request of " + M.fmtBytes(ro.sizeBytes) + ' failed on the device, before event ' + M.fmtCount(ro.beforeEvent) + ' (after event ' + M.fmtCount(st.event) + ', step ' + st.step + ')';
    } else if (st.reason === 'oom') {
      var o = run.ooms[st.oom];
      when = 'at OOM ' + (st.oom + 1) + ': the request of ' + M.fmtBytes(o.sizeBytes) + ' at event ' + M.fmtCount(o.event) + ' failed (' + o.kind + ')';
    } else {
      when = 'after event ' + M.fmtCount(st.event) + ' (step ' + st.step + ')' + (st.reason === 'sample' ? '' : ', the ' + st.reason.replace('-', ' '));
    }
    head.textContent = run.name + ' ' + when + ': reserved ' + M.fmtBytes(t.reservedBytes) + ', in use ' + M.fmtBytes(t.usedBytes) +
      ' (requested ' + M.fmtBytes(t.requestedBytes) + '), ' + M.fmtCount(t.segments) + ' segment' + (t.segments === 1 ? '' : 's') + ', ' +
      M.fmtCount(t.blocks) + ' block' + (t.blocks === 1 ? '' : 's') + ' (' + M.fmtCount(t.freeBlocks) + ' free)';
    var notes = [];
    if (S.picked !== null) {
      notes.push('You picked event ' + M.fmtCount(S.picked) + '; states are captured at ' + run.states.length +
        ' moments of this replay (evenly spaced, the peaks and the OOMs), so this is the nearest one, event ' + M.fmtCount(st.event) + '.');
    }
    var a = st.aggregated;
    if (a.pieces > 0) notes.push(M.fmtCount(a.blocks) + ' smaller blocks are drawn as ' + M.fmtCount(a.pieces) + ' aggregates (cross-hatched) to keep the page small; hover one for its totals.');
    if (a.segmentRuns > 0) notes.push(M.fmtCount(a.segments) + ' smaller segments are drawn as ' + M.fmtCount(a.segmentRuns) + ' merged runs without their blocks.');
    S.notes = notes;
    document.getElementById('state-map').setAttribute('aria-label', head.textContent);
    M.drawState();
  };

  function colorOf(p, j, th, sizeRange) {
    var req = p[j * PIECE + 2];
    if (S.color === 'size') {
      var sz = p[j * PIECE + 1], lo = sizeRange[0], hi = sizeRange[1];
      return rampColor(hi > lo ? (Math.log2(sz) - lo) / (hi - lo) : 0.5);
    }
    var tag = req >= 0 || req === UNKNOWN ? p[j * PIECE + 3] : -1;
    return tag >= 0 ? tagColor(tag) : th.untagged;
  }

  M.drawState = function (forcedWidth) {
    var canvas = document.getElementById('state-map'), legend = document.getElementById('state-legend');
    var note = document.getElementById('state-note');
    var run = D.runs[S.run], st = run ? run.states[S.index] : null;
    var W = forcedWidth || Math.max(320, canvas.parentElement.clientWidth || 800);
    var dpr = window.devicePixelRatio || 1;
    var ctx = canvas.getContext('2d');
    legend.textContent = '';
    if (!st) { canvas.width = W * dpr; canvas.height = 24 * dpr; canvas.style.height = '24px'; ctx.clearRect(0, 0, canvas.width, canvas.height); return; }
    var d = decode(st), th = M.theme(), p = st.pieces, segs = st.segments;
    // Rows of a power-of-two number of bytes; more rows for states with more pieces to tell apart.
    var wantRows = Math.max(1, Math.min(MAX_ROWS, Math.ceil(Math.sqrt(d.n + d.m))));
    var rowBytes = 1;
    while (rowBytes * wantRows < d.total) rowBytes *= 2;
    var rows = Math.max(1, Math.ceil(d.total / rowBytes));
    var H = rows * (ROW_H + ROW_GAP);
    canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
    canvas.style.height = H + 'px';
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    var PW = W - LABEL_W;
    S.layout = { rowBytes: rowBytes, rows: rows, PW: PW, total: d.total };
    function fill(a, b) {
      if (b <= a) return;
      var r0 = Math.floor(a / rowBytes), r1 = Math.floor((b - 1) / rowBytes);
      for (var r = r0; r <= r1; r++) {
        var base = r * rowBytes, s = Math.max(a, base), e = Math.min(b, base + rowBytes);
        ctx.fillRect(LABEL_W + ((s - base) / rowBytes) * PW, r * (ROW_H + ROW_GAP), ((e - s) / rowBytes) * PW, ROW_H);
      }
    }
    ctx.fillStyle = th.muted;
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (var r = 0; r < rows; r++) ctx.fillText(M.fmtAxisBytes(r * rowBytes), 2, r * (ROW_H + ROW_GAP) + ROW_H / 2);
    var freePat = hatch(ctx, th.freeA, th.freeB, false), aggPat = hatch(ctx, th.aggA, th.aggB, true);
    for (var k = 0; k < d.n; k++) {
      ctx.fillStyle = segs[k * SEG + 7] ? th.seg : aggPat;
      fill(d.segStart[k], d.segStart[k + 1]);
    }
    var lo = Infinity, hi = -Infinity, byTag = {}, has = { free: false, agg: false, unlisted: false }, covered = 0;
    for (k = 0; k < d.n; k++) if (!segs[k * SEG + 7]) { has.agg = true; covered += segs[k * SEG + 1]; }
    for (var j = 0; j < d.m; j++) {
      var req = p[j * PIECE + 2], size = p[j * PIECE + 1];
      covered += size;
      if (req === FREE) has.free = true;
      if (req === AGG) has.agg = true;
      if (req >= 0 || req === UNKNOWN) {
        var l = Math.log2(Math.max(1, size));
        if (l < lo) lo = l; if (l > hi) hi = l;
        var tg = p[j * PIECE + 3];
        byTag[tg] = (byTag[tg] || 0) + size;
      }
    }
    for (j = 0; j < d.m; j++) {
      var rq = p[j * PIECE + 2];
      ctx.fillStyle = rq === FREE ? freePat : rq === AGG ? aggPat : colorOf(p, j, th, [lo, hi]);
      fill(d.pStart[j], d.pStart[j] + p[j * PIECE + 1]);
    }
    // A lit group (a row of the holders table): everything is faded into the background, then its
    // blocks are drawn again as they are, with a bar under them (at least 2 px wide, so that small
    // ones show).
    var lit = S.highlight !== null && st.holders ? st.holders.piece : null;
    if (lit) {
      ctx.globalAlpha = 0.75;
      ctx.fillStyle = th.bg;
      fill(0, d.total);
      ctx.globalAlpha = 1;
      for (j = 0; j < d.m; j++) {
        if (lit[j] !== S.highlight) continue;
        ctx.fillStyle = colorOf(p, j, th, [lo, hi]);
        fill(d.pStart[j], d.pStart[j] + p[j * PIECE + 1]);
      }
      ctx.fillStyle = th.accent;
      for (j = 0; j < d.m; j++) {
        if (lit[j] !== S.highlight) continue;
        var a0 = d.pStart[j], b0 = a0 + p[j * PIECE + 1], r0 = Math.floor(a0 / rowBytes), r1 = Math.floor((b0 - 1) / rowBytes);
        for (var rr = r0; rr <= r1; rr++) {
          var base = rr * rowBytes, s0 = Math.max(a0, base), e0 = Math.min(b0, base + rowBytes);
          ctx.fillRect(LABEL_W + ((s0 - base) / rowBytes) * PW, rr * (ROW_H + ROW_GAP) + ROW_H, Math.max(2, ((e0 - s0) / rowBytes) * PW), 3);
        }
      }
    }
    // Segment boundaries: a gap in the background colour, so adjacent segments stay apart.
    ctx.fillStyle = th.bg;
    for (k = 1; k < d.n; k++) {
      var at = d.segStart[k], row = Math.floor(at / rowBytes);
      ctx.fillRect(LABEL_W + ((at - row * rowBytes) / rowBytes) * PW - 1, row * (ROW_H + ROW_GAP), 2, ROW_H);
    }
    has.unlisted = covered < d.total;
    drawLegend(legend, th, byTag, lo, hi, has);
    var text = (S.notes || []).slice();
    text.push('Segments are drawn end to end in address order, ' + M.fmtAxisBytes(rowBytes) + ' per row; address gaps between segments are not drawn. Free blocks are hatched.');
    note.textContent = text.join(' ');
  };

  // The label is isolated (<bdi>): a tag from the trace may hold right-to-left text or overrides, which
  // would otherwise turn what follows it around ("4.00 KiB" read "BiK 00.4").
  function swatch(legend, fillStyle, label, cls, after) {
    var item = document.createElement('span');
    var sw = document.createElement('span');
    sw.className = 'swatch' + (cls ? ' ' + cls : '');
    sw.style.background = fillStyle;
    item.appendChild(sw);
    var text = document.createElement('bdi');
    text.textContent = label;
    item.appendChild(text);
    if (after) item.appendChild(document.createTextNode(after));
    legend.appendChild(item);
  }
  function drawLegend(legend, th, byTag, lo, hi, has) {
    if (S.color === 'size') {
      if (hi >= lo) {
        swatch(legend, 'linear-gradient(90deg,' + rampColor(0) + ',' + rampColor(0.5) + ',' + rampColor(1) + ')', 'block size ' + M.fmtBytes(Math.pow(2, lo)) + ' … ' + M.fmtBytes(Math.pow(2, hi)) + ' (log scale)');
      }
    } else {
      var tags = Object.keys(byTag).map(Number).sort(function (a, b) { return byTag[b] - byTag[a] || a - b; });
      tags.slice(0, 12).forEach(function (t) { swatch(legend, t >= 0 ? tagColor(t) : th.untagged, t >= 0 ? D.tags[t] : 'untagged', undefined, ' ' + M.fmtBytes(byTag[t])); });
      if (tags.length > 12) legend.appendChild(document.createTextNode('… ' + (tags.length - 12) + ' more tags'));
    }
    if (has.free) swatch(legend, 'repeating-linear-gradient(135deg,' + th.freeA + ' 0 3px,' + th.freeB + ' 3px 5px)', 'free');
    if (has.agg) swatch(legend, 'repeating-linear-gradient(45deg,' + th.aggA + ' 0 2px,' + th.aggB + ' 2px 4px)', 'aggregated');
    if (has.unlisted) swatch(legend, th.seg, 'reserved, no block listed');
  }

  function hover(e) {
    var tip = document.getElementById('state-tip'), L = S.layout, run = D.runs[S.run], st = run ? run.states[S.index] : null;
    if (!L || !st) { tip.hidden = true; return; }
    var canvas = e.currentTarget, rect = canvas.getBoundingClientRect();
    var x = e.clientX - rect.left - LABEL_W, y = e.clientY - rect.top;
    var row = Math.floor(y / (ROW_H + ROW_GAP));
    if (x < 0 || row < 0 || row >= L.rows || y - row * (ROW_H + ROW_GAP) > ROW_H) { tip.hidden = true; return; }
    var at = row * L.rowBytes + (x / L.PW) * L.rowBytes;
    if (at >= L.total) { tip.hidden = true; return; }
    tip.innerHTML = describe(st, run, at);
    tip.hidden = false;
    var left = e.clientX - rect.left + 14, wrapW = canvas.parentElement.clientWidth;
    if (left + tip.offsetWidth > wrapW) left = Math.max(0, e.clientX - rect.left - tip.offsetWidth - 14);
    tip.style.left = left + 'px';
    tip.style.top = (y + 16) + 'px';
  }
  M.describeAt = function (at) { var run = D.runs[S.run]; return describe(run.states[S.index], run, at); };

  function describe(st, run, at) {
    var d = decode(st), p = st.pieces, segs = st.segments, E = M.esc;
    var k = M.upper(d.segStart, at) - 1;
    if (k < 0 || k >= d.n) return '';
    var o = k * SEG, segAddr = d.segAddr[k], segLine;
    if (segs[o + 4] > 1 || !segs[o + 7]) {
      var n = segs[o + 4];
      return '<b>' + M.fmtCount(n) + ' segment' + (n === 1 ? '' : 's') + ', ' + M.fmtBytes(segs[o + 1]) + '</b> from ' + M.hex(segAddr) +
        '<br>' + M.fmtCount(segs[o + 6]) + ' blocks, ' + M.fmtBytes(segs[o + 5]) + ' in use (listed only as totals)';
    }
    segLine = 'segment ' + M.hex(segAddr) + ' (' + E(D.kinds[segs[o + 2]]) + ', ' + M.fmtBytes(segs[o + 1]) + (segs[o + 3] >= 0 ? ', stream ' + segs[o + 3] : '') + ')';
    var j = M.upper(d.pStart, at) - 1;
    if (j < 0 || at >= d.pStart[j] + p[j * PIECE + 1] || d.pStart[j] < d.segStart[k]) {
      return 'no block listed here<br>' + segLine;
    }
    var addr = segAddr + (d.pStart[j] - d.segStart[k]), size = p[j * PIECE + 1], req = p[j * PIECE + 2];
    var sizeText = M.fmtBytes(size) + ' (' + M.fmtCount(size) + ' B)';
    if (req === FREE) return '<b>free block</b> at ' + M.hex(addr) + '<br>size ' + sizeText + '<br>' + segLine;
    if (req === AGG) {
      var used = p[j * PIECE + 4];
      return '<b>' + M.fmtCount(p[j * PIECE + 3]) + ' small blocks, aggregated</b> from ' + M.hex(addr) + '<br>' + M.fmtBytes(size) +
        ': ' + M.fmtBytes(used) + ' in use, ' + M.fmtBytes(size - used) + ' free<br>' + segLine;
    }
    var tag = p[j * PIECE + 3], ev = p[j * PIECE + 4], id = st.ids ? st.ids[j] : '';
    return '<b>block</b> at ' + M.hex(addr) + (id ? ' · id ' + E(id) : '') + '<br>size ' + sizeText +
      '<br>requested ' + (req >= 0 ? M.fmtBytes(req) + ' (' + M.fmtCount(req) + ' B)' : 'unknown') +
      '<br>tag ' + (tag >= 0 ? '<bdi>' + E(D.tags[tag]) + '</bdi>' : '(none)') + (ev >= 0 ? '<br>allocated at event ' + M.fmtCount(ev) : '') + '<br>' + segLine;
  }
});
window.memsim.start();
`;

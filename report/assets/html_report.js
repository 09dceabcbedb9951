// Draws the charts of an rpcbench HTML report from the JSON in #rpcbench-data with uPlot.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("rpcbench-data").textContent);
  var runs = data.runs;
  var multi = runs.length > 1;
  var PCT = ["p50", "p90", "p99", "max"];
  // One colour per percentile for a single run (Okabe–Ito); several runs take one colour each and
  // tell the percentiles apart by dash.
  var PCT_COLOR = { p50: "#0072B2", p90: "#009E73", p99: "#E69F00", max: "#D55E00" };
  var PCT_DASH = { p50: null, p90: [10, 4], p99: [4, 3], max: [1, 3] };
  // Beside the latency (from the intended send): the service time (from the actual send) and the
  // send lag (how late the generator sent), per interval.
  var BESIDE = [
    { key: "svc_p50", label: "service p50", color: "#56B4E9", dash: [6, 3] },
    { key: "svc_p99", label: "service p99", color: "#CC79A7", dash: [6, 3] },
    { key: "lag_p99", label: "send lag p99", color: "#000000", dash: [2, 2] }
  ];
  var charts = [];
  window.rpcbenchCharts = charts; // for tests and for poking at in the console

  function fmtMs(v) {
    if (v == null) return "—";
    if (v < 1) return (v * 1000).toFixed(0) + " µs";
    if (v < 10) return v.toFixed(2) + " ms";
    if (v < 1000) return v.toFixed(1) + " ms";
    return (v / 1000).toFixed(2) + " s";
  }
  function fmtNum(v, unit) {
    if (v == null) return "—";
    return (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1)) + unit;
  }
  function tickNum(v) {
    if (v == null) return "";
    var a = Math.abs(v);
    if (a >= 1e6) return (v / 1e6).toFixed(a >= 1e7 ? 0 : 1) + "M";
    if (a >= 1e4) return (v / 1e3).toFixed(0) + "k";
    return String(+v.toPrecision(6));
  }
  // pctLabel turns x = 1/(1−p) into "99.9%".
  function pctLabel(x, extra) {
    if (x == null) return "—";
    if (x <= 1) return "0%";
    var p = 100 * (1 - 1 / x);
    var d = Math.max(0, Math.ceil(Math.log10(x) - 1e-9) - 2 + (extra || 0));
    return p.toFixed(d) + "%";
  }
  function hasData(arrs) {
    for (var i = 0; i < arrs.length; i++) {
      for (var j = 0; arrs[i] && j < arrs[i].length; j++) if (arrs[i][j] != null) return true;
    }
    return false;
  }
  function plotBox(id) { return document.querySelector("#" + id + " .plot"); }
  // A chart the page does not show (a run of subscriptions alone has no calls to chart) is not drawn.
  function empty(id, why) {
    if (!plotBox(id)) return;
    var p = document.createElement("p");
    p.className = "empty";
    p.textContent = why;
    plotBox(id).appendChild(p);
  }
  function size(el) {
    var w = Math.max(280, el.clientWidth);
    return { width: w, height: Math.round(Math.min(360, Math.max(240, w * 0.45))) };
  }
  // Time axes start at 0 with ticks on whole seconds (1, 2, 5, 10 … apart), so the first
  // interval's second has its tick.
  function timeX() { return { time: false, range: function (u, lo, hi) { return [0, Math.max(1, hi)]; } }; }
  function timeAxis() {
    return axis("time since start (s)", { incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 43200, 86400],
      values: function (u, v) { return v.map(tickNum); } });
  }
  function axis(label, extra) {
    var a = { label: label, labelSize: 22, stroke: "#1d2430", grid: { stroke: "#e6e9ee", width: 1 }, ticks: { stroke: "#c9ced6", width: 1 } };
    for (var k in extra) a[k] = extra[k];
    return a;
  }
  // make draws the chart of id from build(log), a func returning uPlot's options for a linear or
  // a log y axis; a chart with a log option gets a "log scale" box in its caption.
  function make(id, build, d, logOption) {
    var el = plotBox(id);
    if (!el) return;
    var entry = { id: id, plot: null, log: false };
    function draw() {
      var opts = build(entry.log);
      var s = size(el);
      opts.width = s.width;
      opts.height = s.height;
      opts.cursor = { drag: { x: true, y: false } };
      if (entry.plot) entry.plot.destroy();
      entry.plot = new uPlot(opts, d, el);
    }
    draw();
    charts.push(entry);
    if (logOption) {
      var label = document.createElement("label");
      label.className = "log-toggle";
      var box = document.createElement("input");
      box.type = "checkbox";
      box.addEventListener("change", function () { entry.log = box.checked; draw(); });
      label.appendChild(box);
      label.appendChild(document.createTextNode(" log scale"));
      document.querySelector("#" + id + " figcaption").appendChild(label);
    }
  }
  function copy(o) { var c = {}; for (var k in o) c[k] = o[k]; return c; } // uPlot changes what it is given
  function latencyY(log) {
    if (log) return { distr: 3, log: 10 };
    return { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.05 : 1]; } };
  }
  function runName(r, what) { return multi ? r.letter + " " + what : what; }

  // Latency over time.
  (function () {
    var t = data.time;
    var ys = [];
    t.runs.forEach(function (r) { PCT.forEach(function (k) { ys.push(r[k]); }); });
    var beside = BESIDE.filter(function (b) { return hasData(t.runs.map(function (r) { return r[b.key]; })); });
    if (!t.x || !t.x.length || !hasData(ys)) {
      empty("chart-latency", "This result has no timeline: it was saved without per-interval records.");
      return;
    }
    var series = [{ label: "time", value: function (u, v) { return v == null ? "—" : v.toFixed(1) + " s"; } }];
    var d = [t.x];
    runs.forEach(function (run, i) {
      PCT.forEach(function (k) {
        series.push({
          label: runName(run, k), stroke: multi ? run.color : PCT_COLOR[k], width: k === "max" ? 1.5 : 2,
          dash: multi ? PCT_DASH[k] || undefined : undefined, spanGaps: true, points: { show: false },
          show: !multi || k === "p50" || k === "p99", // several runs: p90 and max start hidden
          value: function (u, v) { return fmtMs(v); }
        });
        d.push(t.runs[i][k]);
      });
      beside.forEach(function (b) {
        series.push({
          label: runName(run, b.label), stroke: multi ? run.color : b.color, width: 1.5, dash: b.dash,
          spanGaps: true, points: { show: false }, show: !multi || b.key === "svc_p99",
          value: function (u, v) { return fmtMs(v); }
        });
        d.push(t.runs[i][b.key]);
      });
    });
    // the stretches where latency or errors jumped, shaded behind the lines (in the run's colour
    // when the page compares runs)
    function shadeJumps(u) {
      var ctx = u.ctx;
      ctx.save();
      (t.jumps || []).forEach(function (js, i) {
        (js || []).forEach(function (j) {
          var x0 = u.valToPos(j.from, "x", true), x1 = u.valToPos(j.to, "x", true);
          ctx.globalAlpha = 0.15;
          ctx.fillStyle = multi ? runs[i].color : "#d62728";
          ctx.fillRect(x0, u.bbox.top, Math.max(1, x1 - x0), u.bbox.height);
        });
      });
      ctx.restore();
    }
    make("chart-latency", function (log) { return {
      series: series.map(copy),
      hooks: { drawClear: [shadeJumps] },
      scales: { x: timeX(), y: latencyY(log) },
      axes: [timeAxis(),
        axis("latency (ms)", { size: 60, values: function (u, v) { return v.map(tickNum); } })]
    }; }, d, true);
  })();

  // Throughput and errors over time.
  (function () {
    var t = data.time;
    var ys = [];
    t.runs.forEach(function (r) { ys.push(r.rps, r.err_rps); });
    if (!t.x || !t.x.length || !hasData(ys)) {
      empty("chart-throughput", "This result has no timeline: it was saved without per-interval records.");
      return;
    }
    var series = [{ label: "time", value: function (u, v) { return v == null ? "—" : v.toFixed(1) + " s"; } }];
    var d = [t.x];
    runs.forEach(function (run, i) {
      series.push({ label: runName(run, "answers/s"), stroke: multi ? run.color : "#0072B2", width: 2, spanGaps: true,
        points: { show: false }, scale: "y", value: function (u, v) { return fmtNum(v, " /s"); } });
      d.push(t.runs[i].rps);
      series.push({ label: runName(run, "errors/s"), stroke: multi ? run.color : "#D55E00", width: 1.5, dash: [6, 4],
        spanGaps: true, points: { show: false }, scale: "err", value: function (u, v) { return fmtNum(v, " /s"); } });
      d.push(t.runs[i].err_rps);
    });
    make("chart-throughput", function () { return {
      series: series.map(copy),
      scales: {
        x: timeX(),
        y: { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.1 : 1]; } },
        err: { range: function (u, lo, hi) { return [0, Math.max(1, hi > 0 ? hi * 1.1 : 1)]; } }
      },
      axes: [timeAxis(),
        axis("throughput (answers/s)", { size: 64, values: function (u, v) { return v.map(tickNum); } }),
        axis("errors (requests/s)", { scale: "err", side: 1, size: 60, grid: { show: false }, values: function (u, v) { return v.map(tickNum); } })]
    }; }, d);
  })();

  // Percentile spectrum: x = 1/(1−p) on a log axis, as HdrHistogram's plots draw it.
  (function () {
    var svc = data.service_spectrum || [];
    var all = data.spectrum.concat(svc);
    if (!all.some(function (s) { return s.x && s.x.length; })) {
      empty("chart-spectrum", "No latencies were recorded.");
      return;
    }
    var d = uPlot.join(all.map(function (s) { return s.x && s.x.length ? [s.x, s.y] : [[1], [null]]; }));
    var series = [{ label: "percentile", value: function (u, v) { return pctLabel(v, 1); } }];
    runs.forEach(function (run) {
      series.push({ label: runName(run, "latency"), stroke: run.color, width: 2, spanGaps: true, points: { show: false },
        value: function (u, v) { return fmtMs(v); } });
    });
    // the service time of each run, dashed in the run's colour (sky blue beside one run's latency)
    svc.forEach(function (s, i) {
      series.push({ label: runName(runs[i], "service time"), stroke: multi ? runs[i].color : "#56B4E9", width: 2, dash: [6, 3],
        spanGaps: true, points: { show: false }, value: function (u, v) { return fmtMs(v); } });
    });
    var xmax = 1;
    all.forEach(function (s) { if (s.x && s.x.length) xmax = Math.max(xmax, s.x[s.x.length - 1]); });
    var top = Math.pow(10, Math.max(1, Math.ceil(Math.log10(xmax) - 1e-9)));
    make("chart-spectrum", function (log) { return {
      series: series.map(copy),
      scales: { x: { time: false, distr: 3, log: 10, range: function () { return [1, top]; } }, y: latencyY(log) },
      axes: [axis("percentile", {
        splits: function () { var s = []; for (var x = 1; x <= top * 1.0001; x *= 10) s.push(x); return s; },
        values: function (u, v) { return v.map(function (x) { return pctLabel(x); }); }
      }), axis("latency (ms)", { size: 60, values: function (u, v) { return v.map(tickNum); } })]
    }; }, d, true);
  })();

  // Latency histogram: bars side by side, one per run, over shared bins.
  (function () {
    var h = data.hist;
    var n = h.labels ? h.labels.length : 0;
    var present = (h.pct || []).filter(function (p) { return p && p.length; });
    if (!n || !present.length) {
      empty("chart-histogram", "No histogram in this result (a JSON report keeps percentiles only).");
      return;
    }
    var k = runs.length, w = 0.8 / k;
    var xs = [], ys = runs.map(function () { return []; });
    for (var i = 0; i < n; i++) {
      for (var r = 0; r < k; r++) {
        xs.push(i + (r - (k - 1) / 2) * w);
        for (var q = 0; q < k; q++) ys[q].push(q === r && h.pct[r] ? h.pct[r][i] : null);
      }
    }
    var binOf = function (x) { return Math.min(n - 1, Math.max(0, Math.round(x))); };
    var lower = function (b) { var l = h.labels[b]; return l.indexOf("> ") === 0 ? l.slice(2) : l.split("–")[0]; };
    var series = [{ label: "latency", value: function (u, v) { return v == null ? "—" : h.labels[binOf(v)]; } }];
    var bars = uPlot.paths.bars({ size: [0.92, Infinity], align: 0 });
    runs.forEach(function (run) {
      series.push({ label: runName(run, "requests"), stroke: run.color, fill: run.color, width: 0, paths: bars,
        points: { show: false }, value: function (u, v) { return v == null ? "—" : v.toFixed(2) + " %"; } });
    });
    make("chart-histogram", function () { return {
      series: series.map(copy),
      scales: { x: { time: false, range: function () { return [-0.5, n - 0.5]; } },
        y: { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.08 : 1]; } } },
      axes: [axis("latency (lower edge of each range)", {
        splits: function (u) {
          var step = Math.max(1, Math.ceil(n * 80 / Math.max(1, u.bbox.width / (window.devicePixelRatio || 1))));
          var s = [];
          for (var b = 0; b < n; b += step) s.push(b - 0.5);
          return s;
        },
        values: function (u, v) { return v.map(function (x) { return lower(binOf(x + 0.5)); }); }
      }), axis("share of requests (%)", { size: 56, values: function (u, v) { return v.map(tickNum); } })]
    }; }, [xs].concat(ys));
  })();

  // Per endpoint over time (one run of several endpoints): p99, and answers per second.
  (function () {
    var t = data.time, e = t.endpoints;
    if (!e || !document.getElementById("chart-endpoint-latency")) return;
    function chart(id, ys, fmt, yLabel, yOpts) {
      if (!hasData(ys)) {
        empty(id, "No endpoint has a value over time in this result.");
        return;
      }
      var series = [{ label: "time", value: function (u, v) { return v == null ? "—" : v.toFixed(1) + " s"; } }];
      e.names.forEach(function (name, k) {
        series.push({ label: name, stroke: e.colors[k], width: 2, spanGaps: true, points: { show: false }, value: function (u, v) { return fmt(v); } });
      });
      make(id, function (log) { return {
        series: series.map(copy),
        scales: { x: timeX(), y: yOpts(log) },
        axes: [timeAxis(),
          axis(yLabel, { size: 64, values: function (u, v) { return v.map(tickNum); } })]
      }; }, [t.x].concat(ys), yOpts === latencyY);
    }
    chart("chart-endpoint-latency", e.p99, fmtMs, "latency p99 (ms)", latencyY);
    chart("chart-endpoint-throughput", e.rps, function (v) { return fmtNum(v, " /s"); }, "throughput (answers/s)",
      function () { return { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.1 : 1]; } }; });
  })();

  // Subscriptions by percentile: per run, a line of each measure over p50 … max.
  (function () {
    var subs = data.subscriptions || [];
    if (!subs.length || !plotBox("chart-subscriptions")) return;
    var names = data.subs_pcts, xs = names.map(function (n, i) { return i; });
    var dashes = { "time to id": [2, 3], "time to first": [6, 3], "delivery latency": null, "fan-out spread": [10, 4, 2, 4], "reference lag": [1, 6] };
    var palette = { "time to id": "#E69F00", "time to first": "#56B4E9", "delivery latency": "#0072B2", "fan-out spread": "#009E73", "reference lag": "#CC79A7" };
    var series = [{ label: "percentile", value: function (u, v) { return v == null ? "—" : names[Math.round(v)]; } }];
    var ys = [];
    subs.forEach(function (c) {
      var run = runs[c.run];
      c.measures.forEach(function (m) {
        var s = { label: runName(run, m.name), stroke: multi ? run.color : palette[m.name], width: 2, value: function (u, v) { return fmtMs(v); } };
        if (dashes[m.name]) s.dash = dashes[m.name];
        series.push(s);
        ys.push(m.ms);
      });
    });
    make("chart-subscriptions", function (log) { return {
      series: series.map(copy),
      scales: { x: { time: false, range: function () { return [-0.25, names.length - 0.75]; } }, y: latencyY(log) },
      axes: [axis("percentile", { splits: function () { return xs; }, values: function (u, v) { return v.map(function (x) { return names[Math.round(x)] || ""; }); } }),
        axis("ms", { size: 60, values: function (u, v) { return v.map(tickNum); } })]
    }; }, [xs].concat(ys), true);
  })();

  var pending = 0;
  window.addEventListener("resize", function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      charts.forEach(function (c) { c.plot.setSize(size(plotBox(c.id))); });
    }, 100);
  });
})();

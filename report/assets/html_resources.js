// Draws the resource charts of an rpcbench HTML report (CPU, memory, the target's metrics over
// time) from data.resources in #rpcbench-data with uPlot.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("rpcbench-data").textContent);
  var res = data.resources;
  if (!res) return;
  var charts = window.rpcbenchCharts = window.rpcbenchCharts || [];

  function tick(v) {
    if (v == null) return "";
    var a = Math.abs(v);
    if (a >= 1e6) return (v / 1e6).toFixed(a >= 1e7 ? 0 : 1) + "M";
    if (a >= 1e4) return (v / 1e3).toFixed(0) + "k";
    return String(+v.toPrecision(6));
  }
  function num(v, unit) {
    if (v == null) return "—";
    return (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : v.toPrecision(3)) + unit;
  }
  function axis(label, extra) {
    var a = { label: label, labelSize: 22, stroke: "#1d2430", grid: { stroke: "#e6e9ee", width: 1 }, ticks: { stroke: "#c9ced6", width: 1 } };
    for (var k in extra) a[k] = extra[k];
    return a;
  }
  function box(id) { return document.querySelector("#" + id + " .plot"); }
  function size(el) {
    var w = Math.max(280, el.clientWidth);
    return { width: w, height: Math.round(Math.min(360, Math.max(240, w * 0.45))) };
  }
  function chart(id, list, key, yLabel, unit) {
    var el = box(id);
    if (!el) return;
    var series = [{ label: "time", value: function (u, v) { return v == null ? "—" : v.toFixed(1) + " s"; } }];
    var d = [res.x];
    list.forEach(function (s) {
      series.push({ label: s.label, stroke: s.color, width: 2, spanGaps: true, points: { show: res.x.length < 3 },
        value: function (u, v) { return num(v, unit); } });
      d.push(s[key]);
    });
    var s = size(el);
    var plot = new uPlot({
      width: s.width, height: s.height, cursor: { drag: { x: true, y: false } }, series: series,
      scales: { x: { time: false, range: function (u, lo, hi) { return [0, Math.max(1, hi)]; } },
        y: { range: function (u, lo, hi) { return [Math.min(0, lo), hi > 0 ? hi * 1.1 : 1]; } } },
      axes: [axis("time since start (s)", { values: function (u, v) { return v.map(tick); } }),
        axis(yLabel, { size: 64, values: function (u, v) { return v.map(tick); } })]
    }, d, el);
    charts.push({ id: id, plot: plot, log: false });
  }
  chart("chart-cpu", res.targets, "cpu", "CPU (% of one core)", "%");
  chart("chart-rss", res.targets, "rss", "memory (MiB)", " MiB");
  if (res.metrics) chart("chart-metrics", res.metrics, "values", "value", "");
})();

/* swm-gis publish: the map key's looks drawn on a canvas (docs/publish.md).
 *
 * The key is the package's one definition (swm_gis/tables/legend.toml, written into
 * data/data.js as META.key): a fill colour for the strongest constraint, a pattern per further
 * constraint or check not run, a heavy outline for a large parcel. The QGIS style and the
 * printed map draw the same entries: lines at the same angles (counter-clockwise from east, as
 * QGIS), dots on the same grid, spacing and widths in millimetres at 96 dpi.
 */
(function () {
  "use strict";
  var PX_PER_MM = 96 / 25.4;

  function make(key) {
    var BY = {};
    key.forEach(function (e) { BY[e.kind + ":" + e.key] = e; });
    var tiles = {};

    // the marks of `marks` over a w x h area of g (origin 0,0), periodic with the tile size
    function drawMarks(g, marks, w, h) {
      marks.forEach(function (m) {
        var e = BY["mark:" + m];
        if (!e || !e.pattern) { return; }
        var p = e.pattern, step = p.spacing_mm * PX_PER_MM, lw = p.width_mm * PX_PER_MM;
        g.strokeStyle = g.fillStyle = e.colour;
        g.lineWidth = lw;
        if (p.kind === "dots") {
          var t = tileSize(), r = lw / 2;
          g.beginPath();  // two dots a tile, on its diagonal: a staggered grid
          for (var y0 = 0; y0 < h; y0 += t) {
            for (var x0 = 0; x0 < w; x0 += t) {
              [[t / 4, t / 4], [3 * t / 4, 3 * t / 4]].forEach(function (d) {
                g.moveTo(x0 + d[0] + r, y0 + d[1]);
                g.arc(x0 + d[0], y0 + d[1], r, 0, 2 * Math.PI);
              });
            }
          }
          g.fill();
          return;
        }
        // lines at the angle: screen y runs down, so 45 degrees rises to the right
        var a = (p.angle || 0) * Math.PI / 180, dx = Math.cos(a), dy = -Math.sin(a);
        var nx = -dy, ny = dx, span = w + h, gap = lineGap(p.angle || 0, step);
        g.beginPath();
        for (var k = gap * Math.ceil(-span / gap); k <= span; k += gap) {
          var cx = nx * k, cy = ny * k;
          g.moveTo(cx - dx * span, cy - dy * span);
          g.lineTo(cx + dx * span, cy + dy * span);
        }
        g.stroke();
      });
    }

    // one tile size for every pattern so that they repeat seamlessly together: a diagonal's
    // spacing across its lines is the key's; a horizontal line repeats once a tile
    function tileSize() {
      var e = key.filter(function (x) { return x.kind === "mark"; })[0];
      var step = (e ? e.pattern.spacing_mm : 1.6) * PX_PER_MM;
      return Math.max(4, Math.round(step * Math.SQRT2));
    }
    function lineGap(angle, step) {
      var t = tileSize();
      return (angle % 90 === 0) ? t : t / Math.SQRT2;
    }

    // a canvas fill for a class's look: its colour with its marks (cached per look)
    function fillFor(g, colour, marks) {
      if (!marks || !marks.length) { return colour; }
      var id = colour + "|" + marks.join(",");
      if (!tiles[id]) {
        var t = tileSize(), c = document.createElement("canvas");
        c.width = t; c.height = t;
        var tg = c.getContext("2d");
        tg.fillStyle = colour; tg.fillRect(0, 0, t, t);
        drawMarks(tg, marks, t, t);
        tiles[id] = g.createPattern(c, "repeat");
      }
      return tiles[id];
    }

    // a swatch (a small canvas) for a key entry or a class's whole look
    function swatch(look, w, h) {
      var c = document.createElement("canvas");
      c.width = w; c.height = h;
      c.className = "swatch-canvas";
      c.setAttribute("aria-hidden", "true");
      var g = c.getContext("2d");
      g.fillStyle = look.colour || "#FFFFFF";
      g.fillRect(0, 0, w, h);
      drawMarks(g, look.marks || [], w, h);
      var out = BY["outline:large"];
      g.strokeStyle = look.large && out ? out.colour : "#969696";
      g.lineWidth = look.large ? 3 : 1;
      g.strokeRect(g.lineWidth / 2, g.lineWidth / 2, w - g.lineWidth, h - g.lineWidth);
      return c;
    }

    // the look a key entry shows on its own
    function entryLook(e) {
      if (e.kind === "fill") { return { colour: e.colour, marks: [], large: false }; }
      if (e.kind === "mark") { return { colour: "#FFFFFF", marks: [e.key], large: false }; }
      return { colour: "#FFFFFF", marks: [], large: true };
    }

    return { fillFor: fillFor, swatch: swatch, entryLook: entryLook, entry: function (kind, k) {
      return BY[kind + ":" + k];
    } };
  }

  window.SWM_KEY = { make: make, PX_PER_MM: PX_PER_MM };
}());

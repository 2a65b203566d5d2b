/* swm-gis publish: the map's shapes, decoded and drawn on one canvas (docs/publish.md).
 *
 * data/data.js carries each layer's shapes as one base64 string of zigzag varints, already in
 * Web Mercator at Leaflet's zoom 0 and quantised (swm_gis/webmap/encode.py writes it and says
 * the layout). decode() turns a string into one Float64Array of coordinates and, per shape,
 * its rings as views of it, its box and its label point; ShapeCanvas draws a layer's shapes
 * with a style function, skipping those outside the view. Nothing here knows about parcels.
 */
(function () {
  "use strict";

  function decode(text, count, quant, withLabels) {
    var bin = atob(text || ""), n = bin.length;
    // first pass: the varints as numbers (most are one or two bytes)
    var values = new Float64Array(n), nv = 0, v = 0, mul = 1;
    for (var b = 0; b < n; b++) {
      var c = bin.charCodeAt(b);
      v += (c & 0x7f) * mul;
      if (c < 0x80) {
        values[nv++] = (v % 2) ? -(v + 1) / 2 : v / 2;
        v = 0; mul = 1;
      } else {
        mul *= 128;
      }
    }
    var all = new Float64Array(nv);  // an upper bound on the coordinates
    var shapes = new Array(count), box = new Float64Array(count * 4), labels = new Array(count);
    var k = 0, at = 0, x = 0, y = 0;
    for (var i = 0; i < count; i++) {
      var nr = values[k++];
      if (!nr) { shapes[i] = null; labels[i] = null; continue; }
      if (withLabels) {
        x += values[k++]; y += values[k++];
        labels[i] = [x / quant, y / quant];
      }
      var rings = new Array(nr), x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (var r = 0; r < nr; r++) {
        var np = values[k++], start = at;
        for (var p = 0; p < np; p++) {
          x += values[k++]; y += values[k++];
          var px = x / quant, py = y / quant;
          all[at++] = px; all[at++] = py;
          if (px < x0) { x0 = px; } if (px > x1) { x1 = px; }
          if (py < y0) { y0 = py; } if (py > y1) { y1 = py; }
        }
        rings[r] = all.subarray(start, at);
      }
      shapes[i] = rings;
      box[4 * i] = x0; box[4 * i + 1] = y0; box[4 * i + 2] = x1; box[4 * i + 3] = y1;
    }
    return { shapes: shapes, box: box, labels: labels, count: count };
  }

  // the shapes' outer box [x0, y0, x1, y1] (zoom-0 units), or null if none
  function extent(layer) {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, b = layer.box;
    for (var i = 0; i < layer.count; i++) {
      if (!layer.shapes[i]) { continue; }
      if (b[4 * i] < x0) { x0 = b[4 * i]; } if (b[4 * i + 2] > x1) { x1 = b[4 * i + 2]; }
      if (b[4 * i + 1] < y0) { y0 = b[4 * i + 1]; } if (b[4 * i + 3] > y1) { y1 = b[4 * i + 3]; }
    }
    return x0 === Infinity ? null : [x0, y0, x1, y1];
  }

  function trace(g2, rings, scale, ox, oy, closed) {
    for (var r = 0; r < rings.length; r++) {
      var a = rings[r];
      g2.moveTo(a[0] * scale - ox, a[1] * scale - oy);
      for (var k = 2; k < a.length; k += 2) { g2.lineTo(a[k] * scale - ox, a[k + 1] * scale - oy); }
      if (closed) { g2.closePath(); }
    }
  }

  // does a shape's rings hold the point (even-odd: holes and parts included)?
  function contains(rings, x, y) {
    var inside = false;
    for (var r = 0; r < rings.length; r++) {
      var a = rings[r], n = a.length;
      for (var k = 0, j = n - 2; k < n; j = k, k += 2) {
        var ya = a[k + 1], yb = a[j + 1];
        if ((ya > y) !== (yb > y) &&
            x < (a[j] - a[k]) * (y - ya) / (yb - ya) + a[k]) { inside = !inside; }
      }
    }
    return inside;
  }

  // the last shape (the one drawn on top) holding the zoom-0 point, or -1
  function shapeAt(layer, x, y) {
    var b = layer.box, found = -1;
    for (var i = 0; i < layer.count; i++) {
      if (!layer.shapes[i] || x < b[4 * i] || x > b[4 * i + 2] || y < b[4 * i + 1] ||
          y > b[4 * i + 3]) { continue; }
      if (contains(layer.shapes[i], x, y)) { found = i; }
    }
    return found;
  }

  var PAD = 0.3;

  // A Leaflet layer drawing on one canvas: options.draw(g2, visible, scale, ox, oy) is called
  // after every move and zoom with visible(layer, i) telling a shape inside the view.
  function canvasLayer(L) {
    return L.Layer.extend({
      initialize: function (options) { L.setOptions(this, options); },
      onAdd: function (m) {
        this._canvas = L.DomUtil.create("canvas", "shape-canvas leaflet-zoom-hide");
        this._canvas.setAttribute("aria-hidden", "true");
        this.getPane().appendChild(this._canvas);
        m.on("moveend zoomend resize viewreset", this.redraw, this);
        this.redraw();
      },
      onRemove: function (m) {
        L.DomUtil.remove(this._canvas);
        m.off("moveend zoomend resize viewreset", this.redraw, this);
      },
      redraw: function () {
        // the view and PAD of it on each side (as Leaflet's own renderers): a drag shows the
        // shapes beside the view until the canvas is drawn again at its end
        var m = this._map, view = m.getSize(), dpr = window.devicePixelRatio || 1;
        var px = Math.round(view.x * PAD), py = Math.round(view.y * PAD);
        var size = { x: view.x + 2 * px, y: view.y + 2 * py };
        var c = this._canvas;
        L.DomUtil.setPosition(c, m.containerPointToLayerPoint([-px, -py]));
        c.width = Math.round(size.x * dpr); c.height = Math.round(size.y * dpr);
        c.style.width = size.x + "px"; c.style.height = size.y + "px";
        var g2 = c.getContext("2d");
        g2.setTransform(dpr, 0, 0, dpr, 0, 0);
        g2.lineJoin = "round";
        var scale = Math.pow(2, m.getZoom()), origin = m.getPixelBounds().min;
        var ox = origin.x - px, oy = origin.y - py;
        var vx0 = ox / scale, vy0 = oy / scale;
        var vx1 = (ox + size.x) / scale, vy1 = (oy + size.y) / scale;
        var visible = function (layer, i) {
          var b = layer.box;
          return !!layer.shapes[i] && b[4 * i] <= vx1 && b[4 * i + 2] >= vx0 &&
            b[4 * i + 1] <= vy1 && b[4 * i + 3] >= vy0;
        };
        this.options.draw(g2, visible, scale, ox, oy);
      }
    });
  }

  window.SWM_SHAPES = { decode: decode, extent: extent, trace: trace, contains: contains,
                        shapeAt: shapeAt, canvasLayer: canvasLayer };
}());

/* swm-gis publish: the public "do I need a stormwater permit?" map (docs/publish.md).
 *
 * Reads window.SWM_DATA (data/data.js, written by swm-gis publish) and draws it with Leaflet
 * (assets/leaflet). No request leaves the page: no tiles, no fonts, no fetch().
 * The card's words for each finding are made here from the applicability map's values; a null
 * value is said as "Not checked" or "Not determined", never as "No".
 */
(function () {
  "use strict";
  var T0 = performance.now();  // data.js is parsed by now
  var DATA = window.SWM_DATA;
  var META = DATA.meta;
  var PARCELS = DATA.parcels;
  var LEGEND = META.legend;
  var BY_N = {};
  LEGEND.forEach(function (e) { BY_N[e.n] = e; });
  var D = META.habitat_distance_ft;
  var LABEL_ZOOM = 18;
  var MAX_LABELS = 400;

  // ------------------------------------------------------------------ formatting
  function fmtInt(v) {
    var s = String(Math.round(Math.abs(v)));
    var out = "";
    while (s.length > 3) { out = "," + s.slice(-3) + out; s = s.slice(0, -3); }
    return (v < 0 ? "-" : "") + s + out;
  }
  function fmtFt(v) { return fmtInt(v) + " ft"; }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function ran(name) {
    var c = META.checks[name];
    return !!(c && c.ran);
  }
  function triggerText() {
    var sq = META.trigger_sqft;
    var acres = sq / 43560;
    return (acres === 1 ? "1 acre" : acres.toFixed(2) + " acres") + " (" + fmtInt(sq) + " sq ft)";
  }

  // ------------------------------------------------------------------ the findings in words
  // Each returns [status, text]; status is one of yes, no, not_checked, not_determined, info.
  var FINDINGS = [
    ["area", "Area", function (p) {
      return ["info", fmtInt(p.a) + " sq ft (" + p.ac.toFixed(2) + " acres)"];
    }],
    ["trigger", "Can the lot alone reach the one-acre permit trigger?", function (p) {
      return p.t ? ["yes", "Yes: the lot alone is " + triggerText() + " or more"]
        : ["no", "No: the lot alone is under " + triggerText() + "; a permit is still needed " +
           "if the work is part of a larger common plan of development or sale that disturbs " +
           triggerText() + " or more"];
    }],
    ["habitat", "NHESP habitats and certified vernal pools within " + fmtFt(D), function (p) {
      if (p.h === 1) {
        return ["yes", "Yes: the nearest mapped habitat or certified vernal pool is " +
                (p.hd === 0 ? "on or touching the parcel" : fmtFt(p.hd) + " away") +
                " (within " + fmtFt(D) + ")"];
      }
      if (p.h === 0) {
        return ["no", p.hd !== undefined ? "No: the nearest is " + fmtFt(p.hd) +
                " away (more than " + fmtFt(D) + ")" : "No: none within " + fmtFt(D)];
      }
      return ran("nhesp") ? ["not_checked", "Not checked for this parcel: the habitat layers " +
                             "do not cover the parcel and the " + fmtFt(D) + " around it"]
        : ["not_checked", "Not checked: this map has no NHESP habitat layers"];
    }],
    ["floodplain", "100-year floodplain (FEMA Special Flood Hazard Area)", function (p) {
      if (p.f === 1) {
        return ["yes", p.fs !== undefined ? "Yes: " + p.fs.toFixed(1) + "% of the parcel (" +
                fmtInt(p.fa) + " sq ft) is in the 100-year floodplain"
          : "Yes: part of the parcel is in the 100-year floodplain (its share is not known: " +
            "the flood zone layer does not cover the whole parcel)"];
      }
      if (p.f === 0) { return ["no", "No: no part of the parcel is in the 100-year floodplain"]; }
      return ran("in_sfha") ? ["not_checked", "Not checked for this parcel: the flood zone " +
                               "layer does not cover it"]
        : ["not_checked", "Not checked: this map has no flood zone layer"];
    }],
    ["huc12", "Watershed (HUC12): off-site mitigation for new development", function (p) {
      return hucText(p.h12, p.h12n, "huc12", "HUC12");
    }],
    ["huc10", "Watershed (HUC10): off-site mitigation for redevelopment", function (p) {
      return hucText(p.h10, null, "huc10", "HUC10");
    }],
    ["orw", "Does runoff reach an Outstanding Resource Water (ORW)?", function (p) {
      return drainText(p.o, "drains_to_orw", "an Outstanding Resource Water", null);
    }],
    ["impaired", "Does runoff reach an impaired water?", function (p) {
      return drainText(p.im, "drains_to_impaired", "an impaired water", p.ca);
    }]
  ];

  function hucText(code, name, check, label) {
    if (code) { return ["info", code + (name ? " (" + name + ")" : "")]; }
    return ran(check) ? ["not_determined", "Not determined: the parcel is outside the " +
                         label + " watershed layer"]
      : ["not_checked", "Not checked: this map has no " + label + " watershed layer"];
  }

  function drainText(v, check, what, causes) {
    if (v === 1) {
      return ["yes", "Yes: runoff from the parcel reaches " + what +
              (causes ? " (impairment causes: " + causes + ")" : "")];
    }
    if (v === 0) {
      return ["no", "No: runoff from every part of the parcel was traced within the town's " +
              "data and reaches no " + what.replace(/^an? /, "")];
    }
    return ran(check) ? ["not_determined", "Not determined: the trace leaves the town's data " +
                         "(runoff leaves the elevation model or meets no mapped stream), so the " +
                         "map cannot say where this parcel drains"]
      : ["not_checked", "Not checked: this map has no runoff trace (it needs an elevation " +
         "model and the " + (check === "drains_to_orw" ? "ORW" : "impaired waters") + " layer)"];
  }

  var STATUS_WORDS = { yes: "Yes", no: "No", not_checked: "Not checked",
                       not_determined: "Not determined", info: "" };

  // Chapter 320 quotes that go with a finding: always, or when it is not "no".
  function quotesFor(p, results) {
    var keys = ["trigger"];
    if (results.habitat[0] !== "no") { keys.push("habitat", "habitat_protect"); }
    if (results.floodplain[0] !== "no") { keys.push("floodplain", "floodplain_elevation"); }
    keys.push("huc12", "huc10");
    if (results.orw[0] !== "no") { keys.push("orw"); }
    if (results.impaired[0] !== "no") { keys.push("impaired", "impaired_bmps"); }
    keys.push("authority");
    return keys.filter(function (k) { return META.quotes[k]; });
  }

  function headline(p, cls, results) {
    var low = cls.value.toLowerCase();
    if (low === "right-of-way") {
      return "This polygon is a street or other right-of-way, not a lot. Work in it may still " +
             "need a permit when it disturbs " + triggerText() + " or more.";
    }
    if (low === "water") { return "This polygon is water, not a lot."; }
    var found = [], open = [];
    [["habitat", "NHESP habitat within " + fmtFt(D)], ["floodplain", "100-year floodplain"],
     ["orw", "runoff to an ORW"], ["impaired", "runoff to an impaired water"]].forEach(
      function (kv) {
        var s = results[kv[0]][0];
        if (s === "yes") { found.push(kv[1]); }
        if (s === "not_checked" || s === "not_determined") { open.push(kv[1]); }
      });
    var text = p.t
      ? "This lot is " + triggerText() + " or more: work on it that disturbs " + triggerText() +
        " or more needs a stormwater management permit from the Conservation Commission."
      : "This lot alone is under " + triggerText() + ": work on it needs a stormwater " +
        "management permit only if it is part of a larger common plan of development or sale " +
        "that disturbs " + triggerText() + " or more.";
    text += found.length ? " Found on the map: " + found.join("; ") + "."
      : " No mapped constraint was found" + (open.length ? " among the checks that could be made." : ".");
    if (open.length) { text += " Not checked or not determined: " + open.join("; ") + "."; }
    return text;
  }

  // ------------------------------------------------------------------ the card
  var card = document.getElementById("card");

  function parcelTitle(p) {
    if (p.ad && p.ad.length) { return p.ad[0] + (p.ad.length > 1 ? " (and " + (p.ad.length - 1) + " more)" : ""); }
    return "Parcel " + (p.ml || p.id);
  }

  function renderCard(idx) {
    var p = PARCELS[idx];
    var cls = BY_N[p.c] || { n: "?", value: "unclassified", label: "unclassified", colour: "#ffffff" };
    var results = {};
    var rows = FINDINGS.map(function (f) {
      var r = f[2](p);
      results[f[0]] = r;
      var word = STATUS_WORDS[r[0]];
      return "<div class=\"row status-" + r[0] + "\"><dt>" + esc(f[1]) + "</dt><dd data-field=\"" +
             f[0] + "\" data-status=\"" + r[0] + "\">" + (word ? "<strong>" + esc(word) +
             "</strong>" + esc(r[1].slice(word.length)) : esc(r[1])) + "</dd></div>";
    });
    var ids = "<div class=\"row\"><dt>Map-lot</dt><dd data-field=\"map_lot\">" + esc(p.ml || "none") +
              "</dd></div>";
    if (p.id !== p.ml) {
      ids += "<div class=\"row\"><dt>Parcel id</dt><dd data-field=\"parcel_id\">" + esc(p.id) +
             "</dd></div>";
    }
    if (p.ad && p.ad.length) {
      ids += "<div class=\"row\"><dt>Site address" + (p.ad.length > 1 ? "es" : "") +
             "</dt><dd data-field=\"address\">" + p.ad.map(esc).join("<br>") + "</dd></div>";
    }
    if (p.ow && p.ow.length) {
      ids += "<div class=\"row\"><dt>Owner" + (p.ow.length > 1 ? "s" : "") +
             " of record and mailing address</dt><dd data-field=\"owners\">" +
             p.ow.map(function (o) {
               return [o.owner, o.co_owner, o.address, o.address2,
                       [o.city, o.state, o.zip].filter(Boolean).join(" ")]
                 .filter(Boolean).map(esc).join(", ");
             }).join("<br>") + "</dd></div>";
    }
    var quotes = quotesFor(p, results).map(function (k) {
      var q = META.quotes[k];
      return "<figure class=\"quote\"><blockquote><p>" + esc(q.text) + "</p></blockquote>" +
             "<figcaption>Chapter 320, <cite>" + esc(q.section) + "</cite></figcaption></figure>";
    }).join("");
    var link = "#parcel=" + encodeURIComponent(p.id);
    card.innerHTML =
      "<h2 id=\"card-title\">" + esc(parcelTitle(p)) + "</h2>" +
      "<p class=\"card-class\"><span class=\"swatch" + (cls.hatch ? " hatch" : "") +
      (cls.large ? " large" : "") + "\" style=\"background-color:" + esc(cls.colour) +
      "\" aria-hidden=\"true\">" + esc(cls.n) + "</span> <span data-field=\"class\">Map class " +
      esc(cls.n) + ": " + esc(cls.label) + "</span></p>" +
      "<p class=\"headline\" data-field=\"headline\">" + esc(headline(p, cls, results)) + "</p>" +
      "<dl class=\"facts\">" + ids + rows.join("") + "</dl>" +
      "<h3>What Chapter 320 says</h3>" + quotes +
      "<p class=\"disclaimer\"><strong>The Conservation Commission decides.</strong> This card " +
      "is a screening aid made from the town's map data, not a determination: whether a permit " +
      "is needed, and what it requires, is decided by the Conservation Commission on the " +
      "actual project. Ask its office before you plan work.</p>" +
      "<p class=\"vintage\">Generated " + esc(META.generated) + " from the data listed under " +
      "\"About this map\". Shapes on the map are simplified for display by " +
      esc(META.simplify_ft) + " ft; the figures above come from the exact parcel.</p>" +
      "<p class=\"card-actions\"><a id=\"card-link\" href=\"" + esc(link) + "\">Link to this " +
      "card</a> <button type=\"button\" id=\"card-print\">Print this card</button> " +
      "<button type=\"button\" id=\"card-close\">Close the card</button></p>";
    card.hidden = false;
    card.setAttribute("data-parcel", p.id);
    document.getElementById("card-print").addEventListener("click", function () { window.print(); });
    document.getElementById("card-close").addEventListener("click", closeCard);
  }

  function closeCard() {
    card.hidden = true;
    card.removeAttribute("data-parcel");
    unhighlight();
    if (window.location.hash) { history.replaceState(null, "", window.location.pathname + window.location.search); }
    document.getElementById("search-input").focus();
  }

  // ------------------------------------------------------------------ the map
  var map = L.map("map", { preferCanvas: true, zoomSnap: 0.5, keyboard: true,
                           attributionControl: true, zoomControl: true });
  map.attributionControl.setPrefix("Map drawn with Leaflet (licence: assets/leaflet/LICENSE)");
  map.attributionControl.addAttribution(esc(META.town) + " data, " + esc(META.generated));
  var renderer = L.canvas({ padding: 0.3, tolerance: 2 });

  function patternFor(colour) {
    var c = document.createElement("canvas");
    c.width = 8; c.height = 8;
    var g = c.getContext("2d");
    g.fillStyle = colour; g.fillRect(0, 0, 8, 8);
    var rgb = [1, 3, 5].map(function (i) { return parseInt(colour.slice(i, i + 2), 16); });
    var light = (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) > 140;
    g.strokeStyle = light ? "rgba(0,0,0,0.55)" : "rgba(255,255,255,0.7)";
    g.lineWidth = 1.5;
    g.beginPath(); g.moveTo(0, 8); g.lineTo(8, 0); g.moveTo(-2, 2); g.lineTo(2, -2);
    g.moveTo(6, 10); g.lineTo(10, 6); g.stroke();
    return g.createPattern(c, "repeat");
  }
  var FILL = {};
  LEGEND.forEach(function (e) { FILL[e.n] = e.hatch ? patternFor(e.colour) : e.colour; });

  // context under the parcels: water, streams, streets, the town boundary on top
  var ctx = DATA.context || {};
  // each context layer is one (multi-part) Leaflet layer: thousands of street segments drawn
  // as one path cost a fraction of thousands of layers
  function polygonsOf(features) {
    var out = [];
    features.forEach(function (f) {
      if (typeof f.g[0][0][0] === "number") { out.push(f.g); } else { out.push.apply(out, f.g); }
    });
    return out;
  }
  function linesOf(features) {
    var out = [];
    features.forEach(function (f) {
      if (typeof f.g[0][0] === "number") { out.push(f.g); } else { out.push.apply(out, f.g); }
    });
    return out;
  }
  map.createPane("water").style.zIndex = 380;
  map.createPane("parcels").style.zIndex = 390;  // under the streets and the boundary (400)
  if (ctx.waterbodies && ctx.waterbodies.features.length) {
    L.polygon(polygonsOf(ctx.waterbodies.features), {
      renderer: L.canvas({ pane: "water", padding: 0.3 }), color: "#4a7fb0", weight: 0.8, fillColor: "#b3d1ec", fillOpacity: 1,
      interactive: false }).addTo(map);
  }
  // ------------------------------------------------------------------ the parcels: one canvas
  // Every parcel is drawn by one layer on one canvas, from Web Mercator coordinates computed
  // once here: 13,000 Leaflet polygons (objects, events, hit tests) cost most of the start-up.
  var WORLD = 256;  // Leaflet's pixels at zoom 0
  function mercX(lng) { return WORLD * (lng + 180) / 360; }
  function mercY(lat) {
    var s = Math.sin(lat * Math.PI / 180);
    return WORLD * (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI));
  }
  var N = PARCELS.length;
  var SHAPES = new Array(N);           // per parcel: its rings as [x0, y0, x1, y1, ...] (zoom 0)
  var BOX = new Float64Array(N * 4);   // per parcel: min x, min y, max x, max y (zoom 0)
  var LLBOX = new Array(N);            // per parcel: [[south, west], [north, east]]
  var bounds = L.latLngBounds([]);
  for (var pi = 0; pi < N; pi++) {
    var g = PARCELS[pi].g;
    if (!g || !g.length) { SHAPES[pi] = null; continue; }
    var parts = typeof g[0][0][0] === "number" ? [g] : g;  // Polygon or MultiPolygon
    var rings = [], x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    var s0 = 90, w0 = 180, n0 = -90, e0 = -180;
    for (var q = 0; q < parts.length; q++) {
      for (var r = 0; r < parts[q].length; r++) {
        var ring = parts[q][r], a = new Float64Array(ring.length * 2);
        for (var k = 0; k < ring.length; k++) {
          var lat = ring[k][0], lng = ring[k][1], x = mercX(lng), y = mercY(lat);
          a[2 * k] = x; a[2 * k + 1] = y;
          if (x < x0) { x0 = x; } if (x > x1) { x1 = x; }
          if (y < y0) { y0 = y; } if (y > y1) { y1 = y; }
          if (lat < s0) { s0 = lat; } if (lat > n0) { n0 = lat; }
          if (lng < w0) { w0 = lng; } if (lng > e0) { e0 = lng; }
        }
        rings.push(a);
      }
    }
    SHAPES[pi] = rings;
    BOX[4 * pi] = x0; BOX[4 * pi + 1] = y0; BOX[4 * pi + 2] = x1; BOX[4 * pi + 3] = y1;
    LLBOX[pi] = [[s0, w0], [n0, e0]];
    bounds.extend(LLBOX[pi]);
  }
  var highlighted = null;

  function tracePath(g2, rings, scale, ox, oy) {
    g2.beginPath();
    for (var r = 0; r < rings.length; r++) {
      var a = rings[r];
      g2.moveTo(a[0] * scale - ox, a[1] * scale - oy);
      for (var k = 2; k < a.length; k += 2) { g2.lineTo(a[k] * scale - ox, a[k + 1] * scale - oy); }
      g2.closePath();
    }
  }

  var ParcelCanvas = L.Layer.extend({
    options: { pane: "parcels" },
    onAdd: function (m) {
      this._canvas = L.DomUtil.create("canvas", "parcel-canvas leaflet-zoom-hide");
      this.getPane().appendChild(this._canvas);
      m.on("moveend zoomend resize viewreset", this.redraw, this);
      this.redraw();
    },
    onRemove: function (m) {
      L.DomUtil.remove(this._canvas);
      m.off("moveend zoomend resize viewreset", this.redraw, this);
    },
    redraw: function () {
      var m = this._map, size = m.getSize(), dpr = window.devicePixelRatio || 1;
      var c = this._canvas;
      L.DomUtil.setPosition(c, m.containerPointToLayerPoint([0, 0]));
      c.width = Math.round(size.x * dpr); c.height = Math.round(size.y * dpr);
      c.style.width = size.x + "px"; c.style.height = size.y + "px";
      var g2 = c.getContext("2d");
      g2.setTransform(dpr, 0, 0, dpr, 0, 0);
      var scale = Math.pow(2, m.getZoom()), origin = m.getPixelBounds().min;
      var ox = origin.x, oy = origin.y;
      var vx0 = ox / scale, vy0 = oy / scale;
      var vx1 = (ox + size.x) / scale, vy1 = (oy + size.y) / scale;
      g2.lineJoin = "round";
      for (var i = 0; i < N; i++) {
        if (!SHAPES[i] || BOX[4 * i] > vx1 || BOX[4 * i + 2] < vx0 || BOX[4 * i + 1] > vy1 ||
            BOX[4 * i + 3] < vy0) { continue; }
        var e = BY_N[PARCELS[i].c] || {};
        tracePath(g2, SHAPES[i], scale, ox, oy);
        g2.globalAlpha = 0.9;
        g2.fillStyle = FILL[PARCELS[i].c] || "#ffffff";
        g2.fill("evenodd");
        g2.globalAlpha = 1;
        g2.strokeStyle = e.large ? "#505050" : "#969696";
        g2.lineWidth = e.large ? 1.4 : 0.5;
        g2.stroke();
      }
      if (highlighted !== null && SHAPES[highlighted]) {
        tracePath(g2, SHAPES[highlighted], scale, ox, oy);
        g2.strokeStyle = "#000000"; g2.lineWidth = 4; g2.stroke();
      }
    }
  });
  var parcelLayer = new ParcelCanvas().addTo(map);

  // the parcel under a click: boxes first, then the rings (even-odd, holes included)
  function ringsContain(rings, x, y) {
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
  function parcelAt(latlng) {
    var x = mercX(latlng.lng), y = mercY(latlng.lat), found = -1;
    for (var i = 0; i < N; i++) {
      if (!SHAPES[i] || x < BOX[4 * i] || x > BOX[4 * i + 2] || y < BOX[4 * i + 1] ||
          y > BOX[4 * i + 3]) { continue; }
      if (ringsContain(SHAPES[i], x, y)) { found = i; }  // the last drawn is on top
    }
    return found;
  }
  map.on("click", function (ev) {
    var i = parcelAt(ev.latlng);
    if (i >= 0) { select(i, { focusCard: true, fly: false }); }
  });
  var T_PARCELS = performance.now();
  if (ctx.streams && ctx.streams.features.length) {
    L.polyline(linesOf(ctx.streams.features), { renderer: renderer, color: "#2f6ea5",
                                               weight: 1.2, interactive: false }).addTo(map);
  }
  if (ctx.streets && ctx.streets.features.length) {
    L.polyline(linesOf(ctx.streets.features), { renderer: renderer, color: "#5a5a5a",
                                               weight: 0.8, opacity: 0.8,
                                               interactive: false }).addTo(map);
  }
  if (ctx.town_boundary && ctx.town_boundary.features.length) {
    var town = L.polygon(polygonsOf(ctx.town_boundary.features), {
      renderer: renderer, color: "#1a1a1a", weight: 2.5, dashArray: "8 4", fill: false,
      interactive: false }).addTo(map);
    bounds.extend(town.getBounds());
  }
  if (bounds.isValid()) { map.fitBounds(bounds); } else { map.setView([42.5, -71.0], 13); }

  // class numbers on the parcels when zoomed in (colour is never the only key)
  var labelLayer = L.layerGroup().addTo(map);
  function drawLabels() {
    labelLayer.clearLayers();
    if (map.getZoom() < LABEL_ZOOM) { return; }
    var view = map.getBounds(), shown = 0;
    for (var i = 0; i < PARCELS.length && shown < MAX_LABELS; i++) {
      var p = PARCELS[i];
      if (!p.p || !view.contains(p.p)) { continue; }
      L.marker(p.p, { interactive: false, keyboard: false,
                      icon: L.divIcon({ className: "parcel-label", html: String(p.c),
                                        iconSize: [20, 14] }) }).addTo(labelLayer);
      shown++;
    }
  }
  map.on("zoomend moveend", drawLabels);

  function unhighlight() {
    if (highlighted !== null) { highlighted = null; parcelLayer.redraw(); }
  }
  function select(i, opts) {
    highlighted = i;
    if (opts.fly && LLBOX[i]) {
      map.fitBounds(LLBOX[i], { maxZoom: 18, padding: [40, 40], animate: false });
    }
    parcelLayer.redraw();
    renderCard(i);
    var want = "#parcel=" + encodeURIComponent(PARCELS[i].id);
    if (window.location.hash !== want) { history.replaceState(null, "", want); }
    if (opts.focusCard) { card.focus({ preventScroll: true }); card.scrollIntoView({ block: "nearest" }); }
  }

  // ------------------------------------------------------------------ search
  var ABBREV = { STREET: "ST", AVENUE: "AVE", ROAD: "RD", DRIVE: "DR", LANE: "LN", COURT: "CT",
                 PLACE: "PL", TERRACE: "TER", CIRCLE: "CIR", BOULEVARD: "BLVD", PARKWAY: "PKWY",
                 SQUARE: "SQ", HIGHWAY: "HWY", NORTH: "N", SOUTH: "S", EAST: "E", WEST: "W" };
  function norm(s) {
    return String(s).toUpperCase().replace(/[.,#']/g, " ").split(/\s+/).filter(Boolean)
      .map(function (w) { return ABBREV[w] || w; }).join(" ");
  }
  var INDEX = [];
  var BY_ID = {};
  PARCELS.forEach(function (p, i) {
    BY_ID[p.id] = i;
    (p.ad || []).forEach(function (a) { INDEX.push([norm(a), i, a, "address"]); });
    if (p.ml) { INDEX.push([norm(p.ml), i, p.ml, "map-lot"]); }
    if (p.id && p.id !== p.ml) { INDEX.push([norm(p.id), i, p.id, "parcel id"]); }
  });

  function search(q) {
    var n = norm(q);
    if (!n) { return []; }
    var exact = [], starts = [], inside = [], seen = {};
    for (var k = 0; k < INDEX.length; k++) {
      var e = INDEX[k];
      var pos = e[0].indexOf(n);
      if (pos < 0) { continue; }
      (e[0] === n ? exact : pos === 0 ? starts : inside).push(e);
    }
    return exact.concat(starts, inside).filter(function (e) {
      var key = e[1] + "|" + e[2];
      if (seen[key]) { return false; }
      seen[key] = true;
      return true;
    });
  }

  var input = document.getElementById("search-input");
  var list = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  function showResults(q) {
    var found = search(q);
    list.innerHTML = "";
    if (!norm(q)) { status.textContent = ""; return found; }
    status.textContent = found.length === 0 ? "No parcel matches \"" + q + "\"."
      : found.length + " parcel" + (found.length === 1 ? "" : "s") + " match" +
        (found.length === 1 ? "es" : "") + (found.length > 10 ? "; the first 10 are listed." : ".");
    found.slice(0, 10).forEach(function (e) {
      var li = document.createElement("li");
      var b = document.createElement("button");
      b.type = "button";
      b.className = "result";
      b.setAttribute("data-parcel", PARCELS[e[1]].id);
      b.textContent = e[2] + " (" + e[3] + (e[3] === "address" && PARCELS[e[1]].ml
        ? ", map-lot " + PARCELS[e[1]].ml : "") + ")";
      b.addEventListener("click", function () { select(e[1], { focusCard: true, fly: true }); });
      li.appendChild(b);
      list.appendChild(li);
    });
    return found;
  }
  input.addEventListener("input", function () { showResults(input.value); });
  document.getElementById("search-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var found = showResults(input.value);
    if (found.length) { select(found[0][1], { focusCard: true, fly: true }); }
  });

  // ------------------------------------------------------------------ legend and about
  var legendList = document.getElementById("legend-list");
  var lastGroup = "";
  LEGEND.forEach(function (e) {
    if (e.group && e.group !== lastGroup) {  // the QGIS legend's heading ("Large parcel: ...")
      var head = document.createElement("li");
      head.className = "legend-group";
      head.textContent = e.group;
      legendList.appendChild(head);
    }
    lastGroup = e.group || "";
    var li = document.createElement("li");
    li.className = "legend-item";
    li.setAttribute("data-class", e.value);
    li.innerHTML = "<span class=\"swatch" + (e.hatch ? " hatch" : "") + (e.large ? " large" : "") +
      "\" style=\"background-color:" + esc(e.colour) + "\" data-colour=\"" + esc(e.colour) +
      "\" aria-hidden=\"true\">" + esc(e.n) + "</span><span class=\"legend-label\">" +
      "<span class=\"visually-hidden\">Class " + esc(e.n) + ": </span>" + esc(e.label) +
      " <span class=\"count\">(" + fmtInt(e.parcels) + " parcel" + (e.parcels === 1 ? "" : "s") +
      ")</span></span>";
    legendList.appendChild(li);
  });

  var about = ["<p><strong>A screening aid, not a determination.</strong> The Conservation " +
    "Commission is the authority that decides whether a stormwater management permit is " +
    "needed. The map shows what the town's data says about each parcel; it holds nothing " +
    "else.</p>",
    "<p>Generated " + esc(META.generated) + (META.map_computed_utc ? " from the applicability " +
    "map computed " + esc(META.map_computed_utc.slice(0, 10)) : "") + ". Parcel shapes are " +
    "simplified for display by " + esc(META.simplify_ft) + " ft; every figure on a card comes " +
    "from the exact parcel.</p>"];
  var notRun = Object.keys(META.checks).filter(function (k) {
    return k !== "nhesp" && !META.checks[k].ran;
  });
  var CHECK_NAMES = { can_reach_trigger: "one-acre trigger", huc12: "HUC12 watershed",
    huc10: "HUC10 watershed", nhesp_within_500ft: "NHESP habitats",
    nhesp_within_distance: "NHESP habitats", in_sfha: "100-year floodplain",
    drains_to_orw: "runoff to ORWs", drains_to_impaired: "runoff to impaired waters" };
  if (notRun.length) {
    about.push("<p>Not checked anywhere on this map (the town's data has no layer for it): " +
      notRun.map(function (k) { return esc(CHECK_NAMES[k] || k); }).join(", ") + ".</p>");
  }
  about.push("<h3>Data this map rests on</h3><ul class=\"sources\">" + META.sources.map(
    function (s) {
      return "<li><strong>" + esc(s.key.replace(/_/g, " ")) + "</strong>: " + esc(s.name || "?") +
        (s.layer ? " (layer " + esc(s.layer) + ")" : "") +
        (s.vintage ? ", vintage " + esc(s.vintage) : "") +
        (s.modified ? ", file dated " + esc(s.modified) : "") + "</li>";
    }).join("") + "</ul>");
  if (!META.owners_published) {
    about.push("<p>Owner names and mailing addresses are not published on this map.</p>");
  }
  document.getElementById("about-body").innerHTML = about.join("");

  // ------------------------------------------------------------------ links (URL hash)
  function fromHash() {
    var m = /^#parcel=(.+)$/.exec(window.location.hash);
    if (!m) { return; }
    var i = BY_ID[decodeURIComponent(m[1])];
    if (i !== undefined) { select(i, { focusCard: true, fly: true }); }
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
  drawLabels();
  window.SWM_APP = { map: map };  // for scripts and tests: the Leaflet map
  window.SWM_TIMING = { data_parsed_ms: T0, parcels_ms: T_PARCELS - T0,
                        ready_ms: performance.now() };
  document.documentElement.setAttribute("data-ready", "true");
}());

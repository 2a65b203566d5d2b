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
  // the cards' figures, one column per field (swm_gis/webmap/encode.py): a parcel's record
  // is made when its card opens
  var COLS = DATA.cards;
  var N = COLS.id.length;
  var IDS = COLS.id, CLS = COLS.c;
  function record(i) {
    var p = {};
    for (var key in COLS) {
      if (COLS[key][i] !== null && COLS[key][i] !== undefined) { p[key] = COLS[key][i]; }
    }
    return p;
  }
  var LEGEND = META.legend;
  var BY_N = {};
  LEGEND.forEach(function (e) { BY_N[e.n] = e; });
  // the map key (assets/key.js): the colours, patterns and outline the classes use
  var KEY = META.key || [];
  var LOOKS = window.SWM_KEY.make(KEY);
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

  // The regulation's quotes that go with a finding: always, or when it is not "no".
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

  // "Map key 3: ...; patterns 7 (...); outline 9 (...). Class: ..." (the key's numbers)
  function lookWords(cls) {
    var fill = LOOKS.entry("fill", cls.fill) || { n: "?", label: cls.fill };
    var text = "Map key " + fill.n + ": " + fill.label;
    var marks = (cls.marks || []).map(function (m) {
      var e = LOOKS.entry("mark", m);
      return e ? e.n + " (" + e.label.charAt(0).toLowerCase() + e.label.slice(1) + ")" : m;
    });
    if (marks.length) { text += "; pattern" + (marks.length > 1 ? "s " : " ") + marks.join(", "); }
    if (cls.large && OUTLINE) { text += "; outline " + OUTLINE.n + " (large parcel)"; }
    return text + ". Class: " + cls.label + ".";
  }

  function renderCard(idx) {
    var p = record(idx);
    var cls = BY_N[p.c] || { n: "?", key: "?", value: "unclassified", label: "unclassified",
                             colour: "#ffffff", marks: [], fill: "not-checked" };
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
             "<figcaption>" + esc(META.regulation.short) + ", <cite>" + esc(q.section) + "</cite></figcaption></figure>";
    }).join("");
    var link = "#parcel=" + encodeURIComponent(p.id);
    card.innerHTML =
      "<h2 id=\"card-title\">" + esc(parcelTitle(p)) + "</h2>" +
      "<p class=\"card-class\"><span class=\"card-swatch\"></span> <span data-field=\"class\">" +
      esc(lookWords(cls)) + "</span></p>" +
      "<p class=\"headline\" data-field=\"headline\">" + esc(headline(p, cls, results)) + "</p>" +
      "<dl class=\"facts\">" + ids + rows.join("") + "</dl>" +
      (Object.keys(META.quotes).length ?
        "<h3>What " + esc(META.regulation.short) + " says</h3>" : "") + quotes +
      "<p class=\"disclaimer\"><strong>The Conservation Commission decides.</strong> This card " +
      "is a screening aid made from the town's map data, not a determination: whether a permit " +
      "is needed, and what it requires, is decided by the Conservation Commission on the " +
      "actual project. Ask its office before you plan work.</p>" +
      "<p class=\"vintage\">Generated " + esc(META.generated) + " from the data of " +
      "<span data-field=\"town\">" + esc(META.town) + "</span> listed under \"About this map\". Shapes on the map are simplified for display by " +
      esc(META.simplify_ft) + " ft; the figures above come from the exact parcel.</p>" +
      "<p class=\"card-actions\"><a id=\"card-link\" href=\"" + esc(link) + "\">Link to this " +
      "card</a> <button type=\"button\" id=\"card-print\">Print this card</button> " +
      "<button type=\"button\" id=\"card-close\">Close the card</button></p>";
    card.querySelector(".card-swatch").appendChild(LOOKS.swatch(cls, 40, 24));
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

  var FILL = {};
  var scratch = document.createElement("canvas").getContext("2d");
  LEGEND.forEach(function (e) { FILL[e.n] = LOOKS.fillFor(scratch, e.colour, e.marks); });
  var OUTLINE = LOOKS.entry("outline", "large");

  // ------------------------------------------------------------------ the shapes
  // Every layer comes pre-projected (Web Mercator, zoom 0) and quantised in one string each
  // (assets/shapes.js decodes it); the parcels, the water and the lines on top are each
  // drawn by one canvas layer: 13,000 Leaflet polygons (objects, events, hit tests) cost most
  // of a city's start-up.
  var SH = window.SWM_SHAPES, Q = DATA.quant;
  var PARCEL = SH.decode(DATA.shapes, N, Q, true);
  var ctx = DATA.context || {};
  var CTX = {};
  Object.keys(ctx).forEach(function (key) {
    CTX[key] = SH.decode(ctx[key].shapes, ctx[key].n, Q, false);
    CTX[key].kind = ctx[key].kind;
  });
  var ZERO = 0;  // Leaflet's zoom 0: the decoded units
  function toLatLng(x, y) { return map.unproject([x, y], ZERO); }
  function boxBounds(b) {
    return L.latLngBounds(toLatLng(b[0], b[3]), toLatLng(b[2], b[1]));
  }
  var highlighted = null;

  // the view first: each canvas then draws once as it is added (added before a view, each
  // would draw again on every event of the first fitBounds)
  var whole = SH.extent(PARCEL), town = CTX.town_boundary && SH.extent(CTX.town_boundary);
  if (town) {
    whole = whole ? [Math.min(whole[0], town[0]), Math.min(whole[1], town[1]),
                     Math.max(whole[2], town[2]), Math.max(whole[3], town[3])] : town;
  }
  if (whole) { map.fitBounds(boxBounds(whole)); } else { map.setView([42.5, -71.0], 13); }
  map.createPane("water").style.zIndex = 380;
  map.createPane("parcels").style.zIndex = 390;  // under the streets and the boundary (400)
  var Canvas = SH.canvasLayer(L);
  function drawLines(g2, visible, scale, ox, oy, layer, closed) {
    if (!layer) { return; }
    g2.beginPath();
    for (var i = 0; i < layer.count; i++) {
      if (visible(layer, i)) { SH.trace(g2, layer.shapes[i], scale, ox, oy, closed); }
    }
    g2.stroke();
  }
  if (CTX.waterbodies) {
    new Canvas({ pane: "water", draw: function (g2, visible, scale, ox, oy) {
      var w = CTX.waterbodies;
      g2.beginPath();
      for (var i = 0; i < w.count; i++) {
        if (visible(w, i)) { SH.trace(g2, w.shapes[i], scale, ox, oy, true); }
      }
      g2.fillStyle = "#b3d1ec"; g2.fill("evenodd");
      g2.strokeStyle = "#4a7fb0"; g2.lineWidth = 0.8; g2.stroke();
    } }).addTo(map);
  }
  var parcelLayer = new Canvas({ pane: "parcels", draw: function (g2, visible, scale, ox, oy) {
    for (var i = 0; i < N; i++) {
      if (!visible(PARCEL, i)) { continue; }
      var e = BY_N[CLS[i]] || {};
      g2.beginPath();
      SH.trace(g2, PARCEL.shapes[i], scale, ox, oy, true);
      g2.globalAlpha = 0.9;
      g2.fillStyle = FILL[CLS[i]] || "#ffffff";
      g2.fill("evenodd");
      g2.globalAlpha = 1;
      g2.strokeStyle = e.large && OUTLINE ? OUTLINE.colour : "#969696";
      g2.lineWidth = e.large ? 1.8 : 0.5;
      g2.stroke();
    }
    if (highlighted !== null && PARCEL.shapes[highlighted]) {
      g2.beginPath();
      SH.trace(g2, PARCEL.shapes[highlighted], scale, ox, oy, true);
      g2.strokeStyle = "#000000"; g2.lineWidth = 4; g2.stroke();
    }
  } }).addTo(map);
  if (CTX.streams || CTX.streets || CTX.town_boundary) {
    new Canvas({ pane: "overlayPane", draw: function (g2, visible, scale, ox, oy) {
      g2.strokeStyle = "#2f6ea5"; g2.lineWidth = 1.2;
      drawLines(g2, visible, scale, ox, oy, CTX.streams, false);
      g2.strokeStyle = "rgba(90,90,90,0.8)"; g2.lineWidth = 0.8;
      drawLines(g2, visible, scale, ox, oy, CTX.streets, false);
      g2.strokeStyle = "#1a1a1a"; g2.lineWidth = 2.5; g2.setLineDash([8, 4]);
      drawLines(g2, visible, scale, ox, oy, CTX.town_boundary, true);
      g2.setLineDash([]);
    } }).addTo(map);
  }

  map.on("click", function (ev) {
    var pt = map.project(ev.latlng, ZERO);
    var i = SH.shapeAt(PARCEL, pt.x, pt.y);
    if (i >= 0) { select(i, { focusCard: true, fly: false }); }
  });
  var T_PARCELS = performance.now();

  // class numbers on the parcels when zoomed in (colour is never the only key)
  var labelLayer = L.layerGroup().addTo(map);
  function labelAt(i) {
    var p = PARCEL.labels[i];
    return p ? toLatLng(p[0], p[1]) : null;
  }
  function drawLabels() {
    labelLayer.clearLayers();
    if (map.getZoom() < LABEL_ZOOM) { return; }
    var view = map.getPixelBounds(), scale = Math.pow(2, map.getZoom()), shown = 0;
    for (var i = 0; i < N && shown < MAX_LABELS; i++) {
      var p = PARCEL.labels[i];
      if (!p || p[0] * scale < view.min.x || p[0] * scale > view.max.x ||
          p[1] * scale < view.min.y || p[1] * scale > view.max.y) { continue; }
      L.marker(labelAt(i), { interactive: false, keyboard: false,
                             icon: L.divIcon({ className: "parcel-label", html: String((BY_N[CLS[i]] || {}).key || "?"),
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
    if (opts.fly && PARCEL.shapes[i]) {
      map.fitBounds(boxBounds(PARCEL.box.subarray(4 * i, 4 * i + 4)),
                    { maxZoom: 18, padding: [40, 40], animate: false });
    }
    parcelLayer.redraw();
    renderCard(i);
    var want = "#parcel=" + encodeURIComponent(IDS[i]);
    if (window.location.hash !== want) { history.replaceState(null, "", want); }
    if (opts.focusCard) { card.focus({ preventScroll: true }); card.scrollIntoView({ block: "nearest" }); }
  }

  // ------------------------------------------------------------------ search
  var BY_ID = {};
  for (var bi = 0; bi < N; bi++) { BY_ID[IDS[bi]] = bi; }
  var ADS = COLS.ad || [], MLS = COLS.ml || [];
  var finder = window.SWM_SEARCH.make(DATA.search, N, function (i, j) { return ADS[i][j]; },
                                      function (i) { return MLS[i] || IDS[i]; });
  var input = document.getElementById("search-input");
  var list = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  var MAX_RESULTS = 10;

  function resultButton(e, cls) {
    var li = document.createElement("li");
    var b = document.createElement("button");
    b.type = "button";
    b.className = cls;
    b.setAttribute("data-parcel", IDS[e.i]);
    b.textContent = e.text + " (" + e.kind + (e.kind === "address" && MLS[e.i]
      ? ", map-lot " + MLS[e.i] : "") + ")";
    b.addEventListener("click", function () { select(e.i, { focusCard: true, fly: true }); });
    li.appendChild(b);
    list.appendChild(li);
  }
  function showResults(q) {
    list.innerHTML = "";
    if (!q.trim()) { status.textContent = ""; return []; }
    var found = finder.search(q);
    if (found.length === 0) {
      var near = finder.near(q, 5);
      status.textContent = "No parcel matches \"" + q + "\"." + (near.length
        ? " Did you mean one of these?" : " Try a street name alone, or a map-lot.");
      near.forEach(function (e) { resultButton(e, "result suggestion"); });
      return found;
    }
    status.textContent = found.length + " parcel" + (found.length === 1 ? "" : "s") + " match" +
      (found.length === 1 ? "es" : "") + (found.length > MAX_RESULTS
        ? "; the first " + MAX_RESULTS + " are listed." : ".");
    found.slice(0, MAX_RESULTS).forEach(function (e) { resultButton(e, "result"); });
    return found;
  }
  input.addEventListener("input", function () { showResults(input.value); });
  document.getElementById("search-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var found = showResults(input.value);
    if (found.length) { select(found[0].i, { focusCard: true, fly: true }); }
  });
  var S = DATA.search;
  document.getElementById("search-count").textContent = S.addressed === S.parcels
    ? "Every parcel has a site address in the town's data."
    : fmtInt(S.addressed) + " of " + fmtInt(S.parcels) + " parcels have a site address in " +
      "the town's data; click the map for the others.";

  // ------------------------------------------------------------------ legend and about
  var legendList = document.getElementById("legend-list");
  var lastGroup = "";
  KEY.forEach(function (e) {
    if (e.heading !== lastGroup) {  // the QGIS legend's headings: colour, pattern, outline
      var head = document.createElement("li");
      head.className = "legend-group";
      head.textContent = e.heading;
      legendList.appendChild(head);
    }
    lastGroup = e.heading;
    var li = document.createElement("li");
    li.className = "legend-item";
    li.setAttribute("data-kind", e.kind);
    li.setAttribute("data-key", e.key);
    li.setAttribute("data-colour", e.colour);
    li.setAttribute("data-pattern", e.pattern ? (e.pattern.kind === "dots" ? "dots"
      : "lines:" + e.pattern.angle) : "");
    var sw = document.createElement("span");
    sw.className = "swatch";
    sw.appendChild(LOOKS.swatch(LOOKS.entryLook(e), 40, 24));
    var num = document.createElement("span");
    num.className = "swatch-number";
    num.setAttribute("aria-hidden", "true");
    num.textContent = e.n;
    sw.appendChild(num);
    li.appendChild(sw);
    var label = document.createElement("span");
    label.className = "legend-label";
    label.innerHTML = "<span class=\"visually-hidden\">Map key " + esc(e.n) + ": </span>" +
      esc(e.label) + " <span class=\"count\">(" + fmtInt(e.parcels) + " parcel" +
      (e.parcels === 1 ? "" : "s") + ")</span>";
    li.appendChild(label);
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
  // for scripts and tests: the Leaflet map, a parcel's index and label point, the search
  window.SWM_APP = { map: map, parcelIndex: function (id) { return BY_ID[id]; },
                     labelPoint: function (id) { return labelAt(BY_ID[id]); }, search: finder };
  window.SWM_TIMING = { data_parsed_ms: T0, parcels_ms: T_PARCELS - T0,
                        ready_ms: performance.now() };
  document.documentElement.setAttribute("data-ready", "true");
}());

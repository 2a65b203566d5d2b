/* swm-gis publish: the parcel search (docs/publish.md, "Search").
 *
 * The index is built at publish time (swm_gis/webmap/search.py): each site address as a key
 * (upper case, no punctuation, USPS Publication 28 standard words) with its house number or
 * range read apart, and each map-lot as its letters and digits and as its parts without
 * leading zeros. Here a query is written the same way (addressKey and lotKeys repeat the
 * Python functions; the word table comes with the index) and compared:
 *   rank 0  map-lot or parcel id, same parts ("84 20", "84-020" find 84-20)
 *   rank 1  house number in the address's range and the same street ("1218 Cambridge St"
 *           finds "1218-1228 Cambridge St"; a number alone that starts a range)
 *   rank 2  number in the range and a street that starts with what was typed (or a number
 *           alone inside a range); a street alone
 *   rank 3  map-lot with the same letters and digits ("8420")
 *   rank 4  the address or map-lot holds what was typed
 *   rank 5  a map-lot that starts with what was typed
 * Nothing found: near() offers the nearest spellings (a street or map-lot within a few
 * letters) and, on a known street, the nearest house numbers ("did you mean").
 */
(function () {
  "use strict";

  function make(index, parcelCount, addressText, idOf) {
    var WORDS = index.words || {};
    var AD = index.ad || [];
    var LK = null;  // per parcel: its map-lot keys, split from index.lk on the first search

    function addressKey(text) {
      var s = String(text).toUpperCase().replace(/[.']/g, "").replace(/[^0-9A-Z\/\- ]+/g, " ");
      s = s.split(/\s+/).filter(Boolean).join(" ").replace(/\s*-\s*/g, "-");
      var out = [];
      s.split(" ").forEach(function (t) {
        if (!t) { return; }
        if (/[0-9]/.test(t)) { out.push(t); return; }
        t.split("-").forEach(function (w) { if (w) { out.push(WORDS[w] || w); } });
      });
      return out.join(" ");
    }

    function splitNumber(key) {
      var m = /^(\d+)[A-Z]?(?:-(\d+)[A-Z]?)?(?: \d+\/\d+)?(?: (.*))?$/.exec(key);
      if (!m) { return [null, null, key]; }
      var lo = parseInt(m[1], 10), hiText = m[2], street = m[3] || "";
      if (hiText === undefined) { return [lo, lo, street]; }
      if (hiText.length < m[1].length) {
        hiText = m[1].slice(0, m[1].length - hiText.length) + hiText;
      }
      return [lo, Math.max(lo, parseInt(hiText, 10)), street];
    }

    function lotKeys(text) {
      var parts = String(text).toUpperCase().match(/[0-9]+|[A-Z]+/g) || [];
      return [parts.join(""), parts.map(function (p) {
        return /^[0-9]/.test(p) ? (p.replace(/^0+/, "") || "0") : p;
      }).join(" ")];
    }

    function lots() {
      if (LK === null) {
        LK = String(index.lk || "").split("\n").map(function (line) {
          return line ? line.split("\t") : [];
        });
      }
      return LK;
    }

    function rankLot(keys, lk) {
      var best = 9;
      for (var k = 0; k + 1 < keys.length; k += 2) {
        if (keys[k + 1] === lk[1]) { return 0; }
        if (keys[k] === lk[0]) { best = Math.min(best, 3); }
        else if (lk[0].length >= 2 && keys[k].indexOf(lk[0]) === 0) { best = Math.min(best, 5); }
      }
      return best;
    }

    function rankAddress(row, key, q) {
      var lo = row[2], hi = row[3], street = row[4];
      if (q[0] !== null) {
        var inRange = lo !== null && lo <= q[1] && q[0] <= hi;
        if (inRange && q[2] && street === q[2]) { return 1; }
        if (inRange && q[2] && street.indexOf(q[2]) === 0) { return 2; }
        if (inRange && !q[2]) { return q[0] === lo ? 1 : 2; }
      } else if (street === key) {
        return 1;
      } else if (street.indexOf(key) === 0) {
        return 2;
      }
      return row[5].indexOf(key) >= 0 ? 4 : 9;
    }

    // [{i: parcel, text, kind, rank}], best first; a parcel and text once
    function search(query) {
      var key = addressKey(query), lk = lotKeys(query), found = [], seen = {};
      if (!key && !lk[0]) { return found; }
      function add(i, text, kind, rank) {
        var id = i + "|" + text;
        if (rank > 5 || (seen[id] !== undefined && seen[id].rank <= rank)) { return; }
        if (seen[id] !== undefined) { seen[id].rank = rank; return; }
        seen[id] = { i: i, text: text, kind: kind, rank: rank, order: found.length };
        found.push(seen[id]);
      }
      var q = splitNumber(key);
      for (var a = 0; a < AD.length; a++) {
        var row = AD[a];
        add(row[0], addressText(row[0], row[1]), "address", rankAddress(row, key, q));
      }
      if (lk[0]) {
        var L = lots();
        for (var i = 0; i < parcelCount; i++) {
          var keys = L[i];
          if (keys && keys.length) { add(i, idOf(i), "map-lot", rankLot(keys, lk)); }
        }
      }
      return found.sort(function (x, y) { return x.rank - y.rank || x.order - y.order; });
    }

    function distance(a, b, limit) {  // Levenshtein, giving up past limit
      if (Math.abs(a.length - b.length) > limit) { return limit + 1; }
      var prev = [], cur = [];
      for (var j = 0; j <= b.length; j++) { prev[j] = j; }
      for (var i = 1; i <= a.length; i++) {
        cur = [i];
        var low = i;
        for (var k = 1; k <= b.length; k++) {
          cur[k] = Math.min(prev[k] + 1, cur[k - 1] + 1,
                            prev[k - 1] + (a.charCodeAt(i - 1) === b.charCodeAt(k - 1) ? 0 : 1));
          if (cur[k] < low) { low = cur[k]; }
        }
        if (low > limit) { return limit + 1; }
        prev = cur;
      }
      return prev[b.length];
    }

    // "did you mean": up to `max` of [{i, text, kind}], nearest first
    function near(query, max) {
      var key = addressKey(query), lk = lotKeys(query), q = splitNumber(key), out = [];
      var street = q[0] !== null ? q[2] : key;
      if (street) {
        var limit = Math.max(1, Math.floor(street.length / 4)), best = {};
        AD.forEach(function (row) {
          var d = distance(row[4], street, limit);
          if (d > limit && row[4].indexOf(street) === 0) { d = 0; }  // a known street, typed in part
          if (d > limit) { return; }
          var gap = q[0] === null ? 0 : (row[2] === null ? 1e9 : Math.max(0, row[2] - q[1], q[0] - row[3]));
          var score = d * 1e6 + Math.min(gap, 999999), id = row[0] + "|" + row[1];
          if (best[id] === undefined || best[id].score > score) {
            best[id] = { i: row[0], text: addressText(row[0], row[1]), kind: "address", score: score };
          }
        });
        out = Object.keys(best).map(function (k) { return best[k]; });
      }
      if (lk[0] && lk[0].length >= 2) {
        var L = lots();
        for (var i = 0; i < parcelCount; i++) {
          var keys = L[i] || [];
          for (var k = 0; k < keys.length; k += 2) {
            var d2 = distance(keys[k], lk[0], 1);
            if (d2 <= 1) { out.push({ i: i, text: idOf(i), kind: "map-lot", score: d2 * 1e6 }); break; }
          }
        }
      }
      out.sort(function (x, y) { return x.score - y.score; });
      var seen = {}, picked = [];  // one suggestion a parcel: its nearest address or map-lot
      for (var n = 0; n < out.length && picked.length < max; n++) {
        if (seen[out[n].i]) { continue; }
        seen[out[n].i] = true;
        picked.push(out[n]);
      }
      return picked;
    }

    return { addressKey: addressKey, splitNumber: splitNumber, lotKeys: lotKeys,
             search: search, near: near };
  }

  window.SWM_SEARCH = { make: make };
}());

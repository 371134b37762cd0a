/* "Manage my booking": the chauffeur coming on a small map from the operator's tile server (MAP_TILE_URL
   as `data-tiles`), no map library. It reads the coordinates the ride panel prints (#ride-position-text)
   and draws again whenever ride.js puts a new panel in place; hidden with no position shared. The tiles
   cover the box at the largest zoom showing both markers, the chauffeur (C) and the pickup (P); they are
   asked for with the site's origin as referrer only (the page's address holds its signed link). */
(function () {
  "use strict";

  var map = document.getElementById("ride-map");
  var place = document.getElementById("ride-position");
  if (!map || !place || !map.dataset.tiles) return;
  var attribution = document.getElementById("ride-map-attribution");
  var TILE = 256, HEIGHT = 240, MARGIN = 32, MOST = 17, LEAST = 3;

  // Web Mercator: the world is TILE * 2^zoom pixels wide
  function pixel(lat, lng, zoom) {
    var size = TILE * Math.pow(2, zoom), sin = Math.sin(lat * Math.PI / 180);
    return {
      x: (lng + 180) / 360 * size,
      y: (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * size,
    };
  }

  function number(text) {
    return text === "" || text === undefined ? NaN : Number(text);
  }

  function marker(kind, at, label) {
    var dot = document.createElement("span");
    dot.className = "cb-map-marker cb-map-" + kind;
    dot.textContent = label;
    dot.style.left = Math.round(at.x) + "px";
    dot.style.top = Math.round(at.y) + "px";
    return dot;
  }

  function draw() {
    var shown = document.getElementById("ride-position-text");
    var lat = shown ? number(shown.dataset.latitude) : NaN, lng = shown ? number(shown.dataset.longitude) : NaN;
    var hide = isNaN(lat) || isNaN(lng);
    map.hidden = hide;
    if (attribution) attribution.hidden = hide;
    if (hide) { map.replaceChildren(); return; }
    var pickupLat = number(shown.dataset.pickupLatitude), pickupLng = number(shown.dataset.pickupLongitude);
    var pickup = !isNaN(pickupLat) && !isNaN(pickupLng);
    var width = map.clientWidth || 320, height = HEIGHT, zoom = MOST, a, b;
    for (; zoom > LEAST; zoom--) {
      a = pixel(lat, lng, zoom);
      b = pickup ? pixel(pickupLat, pickupLng, zoom) : a;
      if (Math.abs(a.x - b.x) <= width - 2 * MARGIN && Math.abs(a.y - b.y) <= height - 2 * MARGIN) break;
    }
    a = pixel(lat, lng, zoom);
    b = pickup ? pixel(pickupLat, pickupLng, zoom) : a;
    var left = (a.x + b.x) / 2 - width / 2, top = (a.y + b.y) / 2 - height / 2, count = Math.pow(2, zoom);
    var parts = [];
    for (var ty = Math.floor(top / TILE); ty * TILE < top + height; ty++) {
      if (ty < 0 || ty >= count) continue;
      for (var tx = Math.floor(left / TILE); tx * TILE < left + width; tx++) {
        var tile = document.createElement("img");
        tile.className = "cb-map-tile";
        tile.alt = "";
        tile.referrerPolicy = "strict-origin";
        tile.width = tile.height = TILE;
        tile.style.left = Math.round(tx * TILE - left) + "px";
        tile.style.top = Math.round(ty * TILE - top) + "px";
        tile.src = map.dataset.tiles
          .replace("{z}", zoom)
          .replace("{x}", ((tx % count) + count) % count)
          .replace("{y}", ty);
        parts.push(tile);
      }
    }
    if (pickup) parts.push(marker("pickup", { x: b.x - left, y: b.y - top }, "P"));
    parts.push(marker("chauffeur", { x: a.x - left, y: a.y - top }, "C"));
    map.replaceChildren.apply(map, parts);
  }

  // ride.js writes a fresh panel into #ride-position only when it changed
  new MutationObserver(draw).observe(place, { childList: true, subtree: true, characterData: true });
  draw();
})();

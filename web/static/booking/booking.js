/* The booking form: it quotes through the public API (/api/v1/places and availability, and the page's
   quote, GET /api/page/quote: the route and every class's price in one call) and books through the page
   checkout (POST /api/page/checkout), then sends the traveller to the hosted payment page. Every call
   carries the page session the form was served with (its own rate-limit budget, README "Rate limits");
   suggestions wait for a pause in typing, and suggestions and quotes are kept per query, so going back to
   an hour value or a class asks nothing again. A 429 is said in words and retried by itself when the
   window frees (Retry-After). A transfer's return trip is quoted as a second ride (the way out reversed, at
   the way back's time, in the same class) and booked with it (`wayBack`, both prices as `amount`). Mounted on the service's own page, or inside the shadow root embed.js makes on the operator's
   website (then `api` is this service's address). Plain JavaScript, no build step. */
(function () {
  "use strict";

  var STORE = "chauffeur-booking";
  var FIELDS = ["from", "to", "date", "time", "hours", "tour", "name", "email", "phone", "flight", "notes",
                "billing", "vatid", "passengers", "luggage", "back-date", "back-time", "back-flight"];
  var ADDRESS_HINT_ABOVE_EUR = 400; // an Austrian invoice above this names the customer's address
  var WIRE = { // the checkout's field names (problem+json `errors`) → the form's
    "bookingData.from": "from", "bookingData.to": "to", "bookingData.pickupDatetime": "time",
    "bookingData.durationHours": "hours", "bookingData.tourName": "tour", "bookingData.vehicleClass": "vehicle",
    "bookingData.name": "name", "bookingData.email": "email", "bookingData.phone": "phone",
    "bookingData.flightNumber": "flight", "bookingData.notes": "notes", "bookingData.textMessages": "sms",
    "bookingData.billingAddress": "billing", "bookingData.billingVatId": "vatid", termsAccepted: "terms",
    "bookingData.passengers": "passengers", "bookingData.luggage": "luggage", "bookingData.extras": "extras",
    "bookingData.stops": "stops", "bookingData.wayBack": "back-time", "bookingData.wayBack.pickupDatetime": "back-time",
    "bookingData.wayBack.flightNumber": "back-flight"
  };
  // A class that cannot take the trip asked for: it is listed, but not offered.
  var NOT_FOR_THIS_TRIP = ["unknown_tour", "vehicle_too_small", "unknown_extra", "too_many_extras", "too_many_stops"];

  function fill(text, values) {
    return String(text).replace(/\{(\w+)\}/g, function (all, key) { return key in values ? values[key] : all; });
  }

  function newToken() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  function mount(root, options) {
    var config = JSON.parse(root.getElementById("cb-config").textContent);
    var api = (options && options.api) || "";
    var T = config.texts, lang = config.lang, locale = lang === "de" ? "de-DE" : "en-GB";
    var form = root.querySelector(".cb-form");
    var payButton = el("pay");
    var euro = new Intl.NumberFormat(locale, { style: "currency", currency: "EUR" });
    var decimal = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
    var plural = new Intl.PluralRules(locale);
    var state = { route: null, routeKey: "", prices: {}, earliest: config.earliest, attempt: null, seq: 0,
                  pending: false,
                  // a return trip's way back: the way out reversed, quoted as a ride of its own
                  back: { route: null, key: "", prices: {}, seq: 0, pending: false, trouble: "", early: false } };
    var timers = {}, inflight = 0;
    var answers = { places: {}, quotes: {} }; // kept per query for as long as the page is open
    var pausedUntil = 0; // after a 429: no call leaves before this (ms), then the waiting ones go
    // A place field being typed in is not routed ("Flu" is no place): only once a suggestion is chosen or
    // the field is left, so no "no route" error flashes while the traveller is still typing.
    var typing = { from: false, to: false };
    var slots = [];
    for (var slot = 1; slot <= config.maxStops; slot++) slots.push(slot);
    var fields = FIELDS.concat(config.extras.map(function (extra) { return "extra-" + extra.code; }))
      .concat(slots.map(function (n) { return "stop-" + n; }), slots.map(function (n) { return "wait-" + n; }));

    function el(id) { return root.getElementById("cb-" + id); }
    function field(name) { return form.elements[name]; }
    function value(name) { var f = field(name); return f ? String(f.value).trim() : ""; }
    function kind() { return form.elements.kind.value; }
    function vehicle() { return form.elements.vehicle.value; }
    function pickup() { return value("date") && value("time") ? value("date") + "T" + value("time") : ""; }
    // An hourly hire or a tour may go "as directed": without a destination it is routed from its pickup to
    // itself, as the checkout does, so the price is the hours' or the tour's alone.
    function directed() { return kind() !== "transfer"; }
    function returning() { return kind() === "transfer" && Boolean(field("return") && field("return").checked); }
    function backPickup() { return value("back-date") && value("back-time") ? value("back-date") + "T" + value("back-time") : ""; }
    function destination() { return value("to") || (directed() ? value("from") : ""); }
    function plurals(forms, count) { return fill(forms[plural.select(count)] || forms.other, { count: count }); }
    function later(name, wait, run) {
      clearTimeout(timers[name]);
      timers[name] = setTimeout(function () { timers[name] = null; run(); busy(); }, wait);
      busy();
    }

    // The quote is busy while a route or price is on its way; Pay waits for it (a time changed just before).
    function busy() { el("quote").setAttribute("aria-busy", timers.route || inflight ? "true" : "false"); }
    function tracked(promise) {
      inflight++; busy();
      return promise.finally(function () { inflight--; busy(); });
    }
    function settled() {
      return new Promise(function (resolve) {
        var since = Date.now();
        (function check() {
          if ((!timers.route && !inflight) || Date.now() - since > 15000) return resolve();
          setTimeout(check, 50);
        })();
      });
    }

    // "2026-12-01T10:00:00+01:00" is Vienna's wall clock: its text is what the traveller reads.
    function when(iso) {
      var day = iso.slice(0, 10).split("-"), time = iso.slice(11, 16);
      var month = new Intl.DateTimeFormat(locale, { month: "long", timeZone: "UTC" })
        .format(Date.UTC(+day[0], +day[1] - 1, 1));
      return lang === "de" ? +day[2] + ". " + month + " " + day[0] + ", " + time
                           : +day[2] + " " + month + " " + day[0] + ", " + time;
    }

    // A time a traveller would pick: up to the next 5 minutes, never before the exact one (seconds count).
    function roundedUp(iso) {
      var step = 5 * 60000, moment = Date.UTC(+iso.slice(0, 4), +iso.slice(5, 7) - 1, +iso.slice(8, 10),
                                              +iso.slice(11, 13), +iso.slice(14, 16), +iso.slice(17, 19) || 0);
      return new Date(Math.ceil(moment / step) * step).toISOString().slice(0, 16);
    }

    // One call, with the page session. Over the rate limit it says when it will try again, waits for the
    // window to free (Retry-After) and tries again by itself; calls made meanwhile wait too. `wanted`
    // (optional) says whether the answer is still needed once the wait is over (a search typed further);
    // `signal` (optional) cancels the call while it is on its way.
    function call(path, params, body, headers, wanted, signal) {
      var url = api + path + (params ? "?" + new URLSearchParams(params) : ""); // a list: a,b
      var sent = Object.assign(body ? { "Content-Type": "application/json" } : {}, headers);
      if (config.pageSession) sent["Page-Session"] = config.pageSession;
      var init = body ? { method: "POST", body: JSON.stringify(body), headers: sent } : { headers: sent };
      if (signal) init.signal = signal;
      function attempt(tries) {
        return pause().then(function () {
          if (wanted && !wanted()) return { status: 0, ok: false, data: {}, stale: true };
          return fetch(url, init).then(function (response) {
            return response.json().catch(function () { return {}; }).then(function (data) {
              var answer = { status: response.status, ok: response.ok, data: data,
                             retryAfter: waitSeconds(response) };
              if (answer.status !== 429 || tries >= MAX_RETRIES) return answer;
              pausedUntil = Math.max(pausedUntil, Date.now() + answer.retryAfter * 1000);
              waiting(true);
              return attempt(tries + 1);
            });
          });
        });
      }
      return attempt(0);
    }
    var MAX_RETRIES = 10;
    function pause() {
      var rest = pausedUntil - Date.now();
      if (rest <= 0) { waiting(false); return Promise.resolve(); }
      return new Promise(function (resolve) { setTimeout(resolve, rest + Math.random() * 500); }).then(pause);
    }
    function waitSeconds(response) { // Retry-After, else the reset of the RateLimit field, else a minute
      var after = parseInt(response.headers.get("Retry-After"), 10);
      var reset = /;t=(\d+)/.exec(response.headers.get("RateLimit") || "");
      return Math.max(1, after || (reset ? +reset[1] : 60));
    }
    function retryText() {
      var at = new Date(pausedUntil);
      return fill(T.retrying, { time: at.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit", second: "2-digit" }),
                                seconds: Math.max(1, Math.ceil((pausedUntil - Date.now()) / 1000)) });
    }
    function waiting(on) { // the notice stays until the calls that waited leave again
      if (on) { state.waiting = true; state.notice = retryText(); status(state.notice); }
      else if (state.waiting) { state.waiting = false; if (el("route").textContent === state.notice) status(""); }
    }

    // --- errors beside their fields -------------------------------------------------------------------
    function showError(name, message, action) {
      var box = el(name + "-error"), input = name === "vehicle" ? null : field(name);
      if (!box) return formError(message);
      box.textContent = message || "";
      if (action) box.appendChild(action);
      box.hidden = !message;
      if (input) input.setAttribute("aria-invalid", message ? "true" : "false");
    }
    function formError(message) { var box = el("form-error"); box.textContent = message || ""; box.hidden = !message; }
    function status(message) { el("route").textContent = message || ""; }
    function trouble(response) {
      if (response.status === 429) return fill(T.tooMany, { seconds: response.retryAfter || 60 });
      if (state.waiting) return retryText();
      if (response.status === 503) return T.unavailable;
      return T.failed;
    }
    function earliestButton(exact) {
      var iso = roundedUp(exact), button = document.createElement("button");
      button.type = "button";
      button.className = "cb-inline";
      button.textContent = " " + fill(T.useEarliest, { when: when(iso) });
      button.addEventListener("click", function () {
        field("date").value = iso.slice(0, 10);
        field("time").value = iso.slice(11, 16);
        showError("time", "");
        changed();
        checkPickup();
        updateRoute(0);
        field("time").focus();
      });
      return button;
    }
    function tooEarly(iso, reason) {
      var text = reason === "in_past" ? T.inPast : T.tooEarly;
      showError("time", fill(text, { when: when(roundedUp(iso)) }), earliestButton(iso));
    }

    // --- address suggestions: debounced, one session token per search -----------------------------------
    // A list answers the text it was asked for. Once the text changes, the list on screen is stale: it is
    // marked busy (aria-busy) and greyed, none of its options can be picked, and the call on its way for an
    // older text is cancelled (an answer for an older text is dropped anyway). What the traveller does while
    // the fresh list is awaited is done on it once it is here: a tap picks the tapped place if the fresh list
    // still suggests it, else the fresh top match (the text typed is what they want); the arrow keys move
    // and Enter picks in the fresh list. Nothing is ever picked from a list for an older text.
    function autocomplete(name) {
      var input = field(name), list = el(name + "-list"), items = [], active = -1, token = null, seq = 0;
      var awaited = false, intent = null, dismissed = false, pending = null;
      function current() { return input.value.trim(); }
      function stale(on) {
        awaited = on;
        input.setAttribute("aria-busy", on ? "true" : "false");
        list.setAttribute("aria-busy", on ? "true" : "false");
      }
      function close() {
        list.hidden = true; intent = null;
        highlight(-1);
        input.setAttribute("aria-expanded", "false");
      }
      function highlight(index) {
        active = index;
        Array.prototype.forEach.call(list.children, function (item, i) {
          item.setAttribute("aria-selected", i === index ? "true" : "false");
        });
        if (index >= 0) input.setAttribute("aria-activedescendant", list.children[index].id);
        else input.removeAttribute("aria-activedescendant");
      }
      function pick(index) {
        input.value = items[index];
        token = null; // the search is over: the next one gets a new session
        typing[name] = false;
        close();
        showError(name, "");
        changed();
        updateRoute(0);
      }
      // The text changed: the list on screen and any answer on its way are for an older text.
      function outdated() {
        seq++;
        if (pending) { pending.abort(); pending = null; }
        intent = null; dismissed = false;
        highlight(-1);
        if (current().length < 2) { stale(false); return close(); }
        stale(true);
        Array.prototype.forEach.call(list.children, function (item) { item.setAttribute("aria-disabled", "true"); });
      }
      function search() {
        var text = current(), mine = ++seq, known = answers.places[text.toLowerCase()], controller = null;
        if (text.length < 2) { stale(false); return close(); }
        token = token || newToken();
        if (!known && window.AbortController) controller = pending = new AbortController();
        (known ? Promise.resolve(known) : call("/api/v1/places", { input: text, locale: lang, sessionToken: token },
                                               null, null, function () { return mine === seq; },
                                               controller && controller.signal)
        ).then(function (response) {
          if (mine !== seq || text !== current()) return; // the answer to an older text
          if (pending === controller) pending = null;
          stale(false);
          if (!response.ok) { close(); if (response.status >= 429) status(trouble(response)); return; }
          answers.places[text.toLowerCase()] = response;
          show(response.data.suggestions.map(function (s) { return s.placePrediction.text.text; }));
        }).catch(function () { if (mine === seq) { stale(false); close(); } }); // a cancelled call is an older one
      }
      function show(found) {
        var wanted = intent;
        items = found;
        intent = null;
        list.textContent = "";
        items.forEach(function (text, index) {
          var item = document.createElement("li");
          item.id = "cb-" + name + "-option-" + index;
          item.setAttribute("role", "option");
          item.textContent = text;
          item.addEventListener("mousedown", function (event) {
            event.preventDefault();
            if (awaited) intent = { tapped: text }; // a stale option: decided once the fresh list is here
            else pick(index);
          });
          list.appendChild(item);
        });
        if (!items.length) {
          var none = document.createElement("li");
          none.setAttribute("aria-disabled", "true");
          none.textContent = T.noSuggestions;
          list.appendChild(none);
        }
        highlight(-1);
        if (dismissed || root.activeElement !== input) return close(); // Escape, or the field was left
        if (wanted && items.length) {
          if (wanted.tapped !== undefined) return pick(Math.max(0, items.indexOf(wanted.tapped)));
          if (wanted.steps > 0) highlight(Math.min(wanted.steps, items.length) - 1);
          if (wanted.steps < 0) highlight(Math.max(items.length + wanted.steps, 0));
          if (wanted.enter) return pick(Math.max(active, 0));
        }
        list.hidden = false;
        input.setAttribute("aria-expanded", "true");
        status(items.length ? plurals(T.suggestions, items.length) : T.noSuggestions);
      }
      input.addEventListener("focus", function () { typing[name] = true; });
      input.addEventListener("input", function () {
        typing[name] = true;
        outdated();
        later("suggest-" + name, 300, search); // a pause
      });
      input.addEventListener("keydown", function (event) {
        var key = event.key, arrow = key === "ArrowDown" ? 1 : key === "ArrowUp" ? -1 : 0;
        if (key === "Escape") {
          dismissed = awaited;
          if (!list.hidden || awaited) close();
        } else if (awaited && (arrow || key === "Enter")) {
          // The list for this text is on its way: the keys act on it once it is here.
          event.preventDefault();
          intent = intent && intent.tapped === undefined ? intent : { steps: 0 };
          intent.steps += arrow;
          intent.enter = intent.enter || key === "Enter";
        } else if (list.hidden || !items.length) {
          return;
        } else if (arrow) {
          event.preventDefault();
          highlight((active + arrow + items.length) % items.length);
        } else if (key === "Enter") {
          event.preventDefault();
          pick(Math.max(active, 0)); // the highlighted suggestion, else the top match
        }
      });
      input.addEventListener("blur", function () { typing[name] = false; setTimeout(close, 150); updateRoute(300); });
    }

    // --- route, lead time and prices --------------------------------------------------------------------
    // The route and every class's price come in one call (GET /api/page/quote), kept per query: going
    // back to an hour value, a tour or a time asks nothing again. A field being typed in is not routed.
    function updateRoute(wait) { later("route", wait, function () { updatePrices(); }); }

    // The route only where there is one to show: a tour shows its own hours and description instead.
    function showRoute() {
      if (!state.route) return;
      if (kind() === "tour") return status("");
      if (!value("to")) return status(T.asDirected);
      status(fill(T.route, { km: decimal.format(state.route.distance),
                             minutes: Math.max(1, Math.round(state.route.duration / 60)) }));
    }
    function enterHint() { return directed() ? T.enterPickup : T.enterRoute; }

    function quoteQuery() {
      // "As directed" (an hourly hire or a tour without a destination) is priced from the pickup to itself,
      // as the checkout routes it.
      var query = { from: value("from"), to: destination() };
      if (pickup()) query.pickupDatetime = pickup(); // as the checkout routes it
      if (kind() === "hourly") { query.bookingType = "hourly"; query.durationHours = value("hours"); }
      if (kind() === "tour") query.tourSlug = value("tour");
      if (value("passengers")) query.passengers = value("passengers"); // "–": not said, not checked
      if (value("luggage")) query.luggage = value("luggage");
      if (chosenExtras().length) query.extras = chosenExtras();
      var on = stops();
      if (on.length) { // addresses hold commas: the API takes them separated by "|"
        query.stops = on.map(function (stop) { return stop.address; }).join("|");
        query.stopWaits = on.map(function (stop) { return stop.wait; }).join(",");
      }
      return query;
    }

    // --- stops on the way: rows shown one by one, each a place field and the wait there ------------------
    function stopRow(n) { return root.querySelector('[data-stop="' + n + '"]'); }
    function shownStops() { return slots.filter(function (n) { return !stopRow(n).hidden; }); }
    // The stops with an address, in order (a row still empty is not asked about).
    function stops() {
      return shownStops().map(function (n) { return { address: value("stop-" + n), wait: +value("wait-" + n) || 0 }; })
        .filter(function (stop) { return stop.address; });
    }
    function showAddStop() { if (el("add-stop")) el("add-stop").hidden = shownStops().length >= slots.length; }
    function addStop() {
      var next = slots.filter(function (n) { return stopRow(n).hidden; })[0];
      if (!next) return;
      stopRow(next).hidden = false;
      showAddStop();
      field("stop-" + next).focus();
    }
    // The rows after the one removed move up, so the stops stay in order without gaps.
    function removeStop(n) {
      var shown = shownStops(), last = shown[shown.length - 1];
      for (var k = n; k < last; k++) {
        field("stop-" + k).value = field("stop-" + (k + 1)).value;
        field("wait-" + k).value = field("wait-" + (k + 1)).value;
      }
      field("stop-" + last).value = ""; field("wait-" + last).value = "0";
      stopRow(last).hidden = true;
      slots.forEach(function (k) { showError("stop-" + k, ""); });
      showError("stops", "");
      showAddStop();
      changed();
      updatePrices();
      el("add-stop").focus(); // not a place field: focus there means typing, which holds the prices back
    }
    // The extras chosen, as the API names them ("child-seat:2"), in the catalog's order: the price's
    // extra lines come in the same order.
    function chosen() { return config.extras.filter(function (extra) { return +value("extra-" + extra.code) > 0; }); }
    function chosenExtras() {
      return chosen().map(function (extra) { return extra.code + ":" + value("extra-" + extra.code); });
    }
    function extraLabels() {
      return chosen().map(function (extra) {
        var count = +value("extra-" + extra.code);
        return count > 1 ? extra.name + " × " + count : extra.name;
      });
    }

    function updatePrices() {
      // "Flu" is no place: wait for a choice or a blur, in any place field
      if (Object.keys(typing).some(function (name) { return typing[name]; })) return Promise.resolve();
      return Promise.all([updateWayBack(), updateWayOut()]);
    }

    function updateWayOut() {
      var query = quoteQuery(), key = JSON.stringify(query);
      if (query.from.length < 2 || query.to.length < 2) {
        state.route = null; state.prices = {}; state.routeKey = ""; state.pending = false; renderPrices(); showFlight(false);
        return Promise.resolve();
      }
      if (key === state.routeKey) return Promise.resolve();
      state.routeKey = key;
      var mine = ++state.seq, known = answers.quotes[key];
      state.pending = !known;
      if (!known) renderPrices();
      return tracked((known ? Promise.resolve(known) : call("/api/page/quote", query, null, null, function () {
        return mine === state.seq;
      })).then(function (response) {
        if (mine !== state.seq) return;
        state.pending = false;
        state.prices = {};
        state.route = response.ok ? response.data.route : null;
        if (response.ok) {
          answers.quotes[key] = response;
          showError("to", "");
          showRoute();
          showFlight(response.data.pickupIsAirport === true);
          response.data.classes.forEach(function (item) {
            state.prices[item.vehicleClass] = item.price || { problem: item.problem };
          });
        } else if (response.status === 422) {
          answers.quotes[key] = response;
          showError("to", T.noRoute); status("");
        } else {
          state.routeKey = ""; status(trouble(response));
        }
        renderPrices();
        wayBackOrder(); // the way out's arrival moved with its route
      }).catch(function () {
        if (mine === state.seq) state.pending = false;
        state.routeKey = ""; status(T.offline); renderPrices();
      }));
    }

    // --- a return trip: the way back is the way out reversed, at its own time, in the same class ----------
    function backQuery() {
      var query = { from: value("to"), to: value("from") };
      if (backPickup()) query.pickupDatetime = backPickup();
      if (value("passengers")) query.passengers = value("passengers");
      if (value("luggage")) query.luggage = value("luggage");
      if (chosenExtras().length) query.extras = chosenExtras();
      return query;
    }
    function updateWayBack() {
      var back = state.back;
      if (!returning() || value("from").length < 2 || value("to").length < 2) {
        showBackFlight(false);
        if (back.key || back.route || back.pending || back.trouble) {
          back.seq++; back.route = null; back.prices = {}; back.key = ""; back.pending = false; back.trouble = "";
          renderPrices();
        }
        return Promise.resolve();
      }
      var query = backQuery(), key = JSON.stringify(query);
      if (key === back.key) return Promise.resolve();
      back.key = key;
      var mine = ++back.seq, known = answers.quotes[key];
      back.pending = !known; back.trouble = "";
      if (!known) renderPrices();
      return tracked((known ? Promise.resolve(known) : call("/api/page/quote", query, null, null, function () {
        return mine === back.seq;
      })).then(function (response) {
        if (mine !== back.seq) return;
        back.pending = false; back.prices = {};
        back.route = response.ok ? response.data.route : null;
        if (response.ok) {
          answers.quotes[key] = response;
          showBackFlight(response.data.pickupIsAirport === true);
          response.data.classes.forEach(function (item) {
            back.prices[item.vehicleClass] = item.price || { problem: item.problem };
          });
        } else if (response.status === 422) {
          answers.quotes[key] = response;
          back.trouble = T.noRoute;
        } else {
          back.key = ""; back.trouble = trouble(response);
        }
        renderPrices();
      }).catch(function () {
        if (mine !== back.seq) return;
        back.key = ""; back.pending = false; back.trouble = T.offline; renderPrices();
      }));
    }
    // The flight number of the way back only when it starts at an airport, as the way out's.
    function showBackFlight(airport) { el("back-flight-field").hidden = !airport; }
    function showReturn() {
      var on = returning();
      el("way-back").hidden = !on;
      field("back-date").required = on;
      field("back-time").required = on;
      field("back-date").min = value("date") || config.earliest.slice(0, 10);
      if (!on) ["back-date", "back-time", "back-flight"].forEach(function (name) { showError(name, ""); });
    }
    // When the way out arrives, its stops' waits counted, on Vienna's wall clock ("2026-12-01T10:25:30"):
    // the quote's own arrival for the pickup asked.
    function arrival() { return (state.route.estimatedArrival || "").slice(0, 19); }
    // A way back picked up before the way out arrives is said at once (the checkout refuses it too); false then.
    function wayBackOrder() {
      var back = state.back;
      if (!returning() || !pickup() || !backPickup() || !state.route || !state.route.estimatedArrival) return true;
      var arrives = arrival();
      if (backPickup() + ":00" <= arrives) {
        showError("back-time", fill(T.wayBackTooEarly, { arrival: when(arrives) }));
        back.early = true;
        return false;
      }
      if (back.early) { showError("back-time", ""); back.early = false; }
      return true;
    }
    function checkBackPickup() {
      var asked = backPickup();
      if (!returning() || !asked) return;
      call("/api/v1/availability", { pickupDatetime: asked }).then(function (response) {
        if (asked !== backPickup()) return;
        if (response.status === 400) return showError("back-time", T.noSuchTime);
        if (!response.ok || response.data.available) return; // the checkout checks it again
        var answer = response.data;
        if (answer.reason === "too_far_ahead") return showError("back-date", fill(T.tooFar, { days: config.maxDaysAhead }));
        showError("back-time", fill(answer.reason === "in_past" ? T.inPast : T.tooEarly,
                                    { when: when(roundedUp(answer.earliestPickup)) }));
      }).catch(function () { /* the checkout checks it again */ });
    }
    // Both rides' price in cents, or null while the way back has none.
    function priceCents(quote) { return quote && quote.priceEur !== undefined ? Math.round(quote.priceEur * 100) : null; }
    function tripCents(code) {
      if (state.pending || (returning() && state.back.pending)) return null; // never a total of stale prices
      var out = priceCents(state.prices[code]);
      if (out === null || !returning()) return out;
      var back = priceCents(state.back.prices[code]);
      return back === null ? null : out + back;
    }

    // The flight number only for a pickup at an airport (the quote says so): it is met at arrivals.
    function showFlight(airport) { el("flight-field").hidden = !airport; }

    // Why a class cannot take the trip (the way out, or a return trip's way back), if it cannot.
    function problemOf(code) {
      return (state.prices[code] || {}).problem || (returning() && (state.back.prices[code] || {}).problem) || undefined;
    }

    function renderPrices(placeholder) {
      placeholder = placeholder || (state.pending ? T.calculating : "");
      var backPending = returning() && state.back.pending;
      config.classes.forEach(function (code) {
        var price = state.prices[code], problem = problemOf(code), cents = tripCents(code);
        var slot = root.querySelector('[data-price-for="' + code + '"]');
        var radio = root.querySelector('input[name=vehicle][value="' + code + '"]');
        radio.disabled = Boolean(problem && NOT_FOR_THIS_TRIP.indexOf(problem) >= 0);
        // a return trip's class carries both rides: their price together, once the way back's is known
        slot.textContent = problem === "unknown_tour" ? T.notForTour : problem ? T.notFit
          : cents !== null ? euro.format(cents / 100)
          : price && price.priceEur !== undefined && backPending ? T.calculating
          : price && price.priceEur !== undefined ? euro.format(price.priceEur) : placeholder || "–";
      });
      var fits = config.classes.filter(function (code) { return !problemOf(code); });
      var unfit = state.route && !fits.length ? tripProblem() : "";
      showError("passengers", unfit === T.tooSmall ? unfit : "", unfit === T.tooSmall ? quoteButton() : null);
      showError("stops", unfit === T.tooManyStops ? unfit : "");
      showError("extras", unfit && unfit !== T.tooSmall && unfit !== T.tooManyStops ? unfit : "");
      var chosen = root.querySelector("input[name=vehicle]:checked");
      if (chosen && chosen.disabled && fits.length) { // the trip outgrew it: the first class that fits
        root.querySelector('input[name=vehicle][value="' + fits[0] + '"]').checked = true;
      }
      var quote = state.prices[vehicle()], box = el("quote");
      box.textContent = "";
      if (!quote || quote.priceEur === undefined) {
        var hint = document.createElement("p");
        hint.className = "cb-hint";
        hint.textContent = placeholder || unfit || (state.route ? (quote && quote.response ? trouble(quote.response) : "") : enterHint());
        box.appendChild(hint);
        payButton.textContent = T.payNoPrice;
        return;
      }
      if (!returning()) {
        box.appendChild(linesTable(quote, { route: state.route, stops: stops(), total: T.total }));
        payButton.textContent = onAccount() ? T.bookOnAccount : fill(T.pay, { price: euro.format(quote.priceEur) });
        billingHint();
        return;
      }
      // A return trip: each ride's price, then both together (what Pay charges).
      box.appendChild(linesTable(quote, { route: state.route, stops: stops(), total: T.wayOut, id: "cb-lines-out",
                                          caption: pickup() ? fill(T.wayOutOn, { when: when(pickup()) }) : T.wayOut }));
      var cents = tripCents(vehicle());
      if (cents === null) {
        var waiting = document.createElement("p");
        waiting.className = "cb-hint";
        waiting.textContent = backPending ? T.calculating : state.back.trouble || unfit;
        if (waiting.textContent) box.appendChild(waiting);
        payButton.textContent = T.payNoPrice;
        return;
      }
      box.appendChild(linesTable(state.back.prices[vehicle()], {
        route: state.back.route, stops: [], total: T.wayBack, id: "cb-lines-back",
        caption: backPickup() ? fill(T.wayBackOn, { when: when(backPickup()) }) : T.wayBack }));
      var total = document.createElement("table"), foot = document.createElement("tfoot");
      total.className = "cb-lines cb-trip-total";
      total.id = "cb-trip-total";
      foot.appendChild(row(T.tripTotal, euro.format(cents / 100)));
      total.appendChild(foot);
      box.appendChild(total);
      payButton.textContent = onAccount() ? T.bookOnAccount : fill(T.pay, { price: euro.format(cents / 100) });
      billingHint();
    }

    // Why no class takes the trip, in words (the quote's `problem` of each class): the passengers and
    // luggage, or the extras (a child seat is for a passenger).
    function tripProblem() {
      var problems = config.classes.map(problemOf);
      if (problems.indexOf("vehicle_too_small") >= 0) return T.tooSmall;
      if (problems.indexOf("unknown_tour") >= 0) return "";
      if (problems.indexOf("too_many_stops") >= 0) return T.tooManyStops;
      return T.extrasRefused;
    }

    // One ride's price lines (`ride`: its route, stops, the total's label, and a caption and id for a
    // return trip's two rides).
    function linesTable(quote, ride) {
      var table = document.createElement("table"), body = document.createElement("tbody"), foot = document.createElement("tfoot");
      var tour = field("tour") && field("tour").selectedOptions[0];
      var values = { km: decimal.format(ride.route.distance), hours: decimal.format(+value("hours") || 0),
                     tour: tour ? tour.textContent : "" };
      var extras = extraLabels(), on = ride.stops, stopNumber = 0;
      table.className = "cb-lines";
      if (ride.id) table.id = ride.id;
      if (ride.caption) table.createCaption().textContent = ride.caption;
      quote.lines.forEach(function (line) {
        if (line.code === "rounding" && !line.amountEur) return;
        var label = line.code === "extra" ? extras.shift() || line.label
          : line.code === "stop" ? stopLabel(++stopNumber, on[stopNumber - 1], line)
          : fill(T.lines[line.code] || line.label, values);
        body.appendChild(row(label, euro.format(line.amountEur)));
      });
      foot.appendChild(row(ride.total, euro.format(quote.priceEur)));
      var vat = document.createElement("tr"), cell = document.createElement("td");
      cell.colSpan = 2; cell.className = "cb-vat";
      cell.textContent = fill(T.vat, { rate: decimal.format(quote.vatRate * 100), vat: euro.format(quote.vatEur),
                                       net: euro.format(quote.netEur) });
      vat.appendChild(cell); foot.appendChild(vat);
      table.appendChild(body); table.appendChild(foot);
      return table;
    }
    // A stop's line as the traveller reads it: its number and address, and the wait (the lines come in order).
    function stopLabel(number, stop, line) {
      if (!stop) return line.label;
      var named = fill(T.stop, { number: number, address: stop.address });
      return stop.wait ? fill(T.stopWaiting, { stop: named, minutes: stop.wait }) : named;
    }
    function row(label, amount) {
      var tr = document.createElement("tr"), th = document.createElement("th"), td = document.createElement("td");
      th.scope = "row"; th.textContent = label; td.textContent = amount;
      tr.appendChild(th); tr.appendChild(td);
      return tr;
    }

    function checkPickup() {
      if (!pickup()) return Promise.resolve(true);
      var asked = pickup();
      return call("/api/v1/availability", { pickupDatetime: asked }).then(function (response) {
        if (asked !== pickup()) return false;
        if (response.status === 400) { showError("time", T.noSuchTime); return false; }
        if (!response.ok) { status(trouble(response)); return true; } // the checkout checks it again
        var answer = response.data;
        state.earliest = answer.earliestPickup;
        el("earliest").textContent = fill(T.earliest, { when: when(roundedUp(answer.earliestPickup)) });
        field("date").min = answer.earliestPickup.slice(0, 10);
        if (answer.available) { showError("time", ""); return true; }
        if (answer.reason === "too_far_ahead") showError("date", fill(T.tooFar, { days: config.maxDaysAhead }));
        else tooEarly(answer.earliestPickup, answer.reason);
        return false;
      }).catch(function () { return true; });
    }

    // --- choices survive a reload and a cancelled payment -------------------------------------------------
    function changed() {
      var saved = { kind: kind(), vehicle: vehicle() };
      fields.forEach(function (name) { if (field(name)) saved[name] = field(name).value; });
      if (field("sms")) saved.sms = field("sms").checked;
      if (field("return")) saved.return = field("return").checked;
      try { localStorage.setItem(STORE, JSON.stringify(saved)); } catch (e) { /* private mode: not kept */ }
    }
    function restore() {
      var saved = config.resume;
      if (!saved) { try { saved = JSON.parse(localStorage.getItem(STORE) || "null"); } catch (e) { saved = null; } }
      if (!saved) return;
      fields.forEach(function (name) {
        var input = field(name);
        if (!input || !saved[name]) return;
        if (/^wait-/.test(name) && !input.querySelector('option[value="' + saved[name] + '"]')) {
          var booked = document.createElement("option"); // a wait booked elsewhere (the API, staff): kept
          booked.value = saved[name];
          booked.textContent = fill(T.minutes, { minutes: saved[name] });
          input.appendChild(booked);
        }
        input.value = saved[name];
        if (input.tagName === "SELECT" && input.selectedIndex < 0) input.selectedIndex = 0; // no longer offered
      });
      if (field("sms")) field("sms").checked = saved.sms === true;
      if (field("return")) field("return").checked = saved.return === true;
      slots.forEach(function (n) { if (saved["stop-" + n]) stopRow(n).hidden = false; });
      showAddStop();
      [["kind", saved.kind], ["vehicle", saved.vehicle]].forEach(function (pair) {
        var radio = root.querySelector('input[name=' + pair[0] + '][value="' + pair[1] + '"]');
        if (radio) radio.checked = true;
      });
      if (config.resume) changed();
    }
    function showKind() {
      el("hours-field").hidden = kind() !== "hourly";
      if (el("tour-field")) el("tour-field").hidden = kind() !== "tour";
      el("to-hint").hidden = !directed();
      el("return-field").hidden = kind() !== "transfer"; // an hourly hire or a tour books its way back on its own
      showReturn();
      field("to").required = !directed();
      Array.prototype.forEach.call(root.querySelectorAll("[data-tour-about]"), function (about) {
        about.hidden = about.getAttribute("data-tour-about") !== value("tour");
      });
    }

    // --- booking ---------------------------------------------------------------------------------------
    function validate() {
      var wrong = [];
      ["from", "to", "date", "time", "back-date", "back-time", "name", "email", "phone"].forEach(function (name) {
        if (name === "to" && directed()) return; // as directed
        if (/^back-/.test(name) && !returning()) return;
        if (!value(name)) { showError(name, T.required[name]); wrong.push(name); }
      });
      if (!wayBackOrder()) wrong.push("back-time");
      if (value("email") && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value("email"))) {
        showError("email", T.emailInvalid); wrong.push("email");
      }
      // Digits, spaces and + ( ) - / . only; which numbers are real (and not premium) the server decides.
      if (value("phone") && !/^[0-9+()./\- \u00a0]+$/.test(value("phone").trim())) {
        showError("phone", T.phoneInvalid); wrong.push("phone");
      }
      shownStops().forEach(function (n) {
        if (!value("stop-" + n)) { showError("stop-" + n, T.stopRequired); wrong.push("stop-" + n); }
      });
      if (pickup() && pickup() < state.earliest.slice(0, 16)) { tooEarly(state.earliest); wrong.push("time"); }
      if (!field("terms").checked) { showError("terms", T.required.terms); wrong.push("terms"); }
      // No price yet is not a field to mark: say why (a pause after the rate limit, no route, a failure).
      var message = wrong.length ? T.checkFields : "";
      if (!wrong.length && !(state.prices[vehicle()] || {}).priceEur) {
        message = state.waiting ? retryText() : state.route ? T.failed : enterHint();
      } else if (!wrong.length && tripCents(vehicle()) === null) { // the way back's price is missing
        message = state.waiting ? retryText() : state.back.trouble || T.failed;
      }
      return { fields: wrong, message: message };
    }

    function booking() {
      var data = { from: value("from"), to: value("to"), pickupDatetime: pickup(), vehicleClass: vehicle(),
                   bookingType: kind() === "hourly" ? "hourly" : "distance", name: value("name"),
                   email: value("email"), phone: value("phone"), locale: lang,
                   textMessages: Boolean(field("sms") && field("sms").checked) };
      if (kind() === "hourly") data.durationHours = +value("hours");
      if (kind() === "tour") data.tourName = value("tour");
      if (!el("flight-field").hidden && value("flight")) data.flightNumber = value("flight");
      if (value("notes")) data.notes = value("notes");
      if (value("billing")) data.billingAddress = value("billing");
      if (value("vatid")) data.billingVatId = value("vatid");
      if (value("passengers")) data.passengers = +value("passengers");
      if (value("luggage")) data.luggage = +value("luggage");
      if (chosenExtras().length) data.extras = chosenExtras();
      if (stops().length) {
        data.stops = stops().map(function (stop) { return { address: stop.address, waitMinutes: stop.wait }; });
      }
      if (returning()) { // the way out reversed: its addresses are the server's to turn round
        data.wayBack = { pickupDatetime: backPickup() };
        if (!el("back-flight-field").hidden && value("back-flight")) data.wayBack.flightNumber = value("back-flight");
      }
      return { amount: tripCents(vehicle()), bookingData: data,
               paymentMethod: onAccount() ? "account" : "checkout", termsAccepted: field("terms").checked };
    }

    function onAccount() { return Boolean(field("payment") && value("payment") === "account"); }

    // A gentle hint, never a block: above 400 € the invoice should name the customer's address.
    function billingHint() {
      var quote = state.prices[vehicle()] || {};
      el("billing-hint").hidden = !(quote.priceEur > ADDRESS_HINT_ABOVE_EUR && !value("billing"));
    }

    // --- a quote from staff, when no vehicle takes the trip (POST /api/page/quote-requests) ------------------
    function quoteButton() {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "cb-inline";
      button.id = "cb-ask-quote";
      button.textContent = " " + T.askQuote;
      button.addEventListener("click", askQuote);
      return button;
    }
    function askQuote() {
      var wrong = [];
      ["from", "date", "time", "name", "email"].forEach(function (name) {
        if (!value(name)) { showError(name, T.required[name]); wrong.push(name); }
      });
      if (value("email") && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value("email"))) {
        showError("email", T.emailInvalid); wrong.push("email");
      }
      if (wrong.length) { formError(T.quoteFields); field(wrong[0]).focus(); return; }
      var body = { from: value("from"), to: value("to"), pickupDatetime: pickup(), name: value("name"),
                   email: value("email"), phone: value("phone"), locale: lang, reason: "vehicle_too_small",
                   details: tripInWords().join("\n") };
      if (value("passengers")) body.passengers = +value("passengers");
      if (value("luggage")) body.luggage = +value("luggage");
      formError("");
      el("ask-quote").disabled = true;
      call("/api/page/quote-requests", null, body).then(function (response) {
        if (response.status === 201) return quoteAsked(response.data.reference);
        el("ask-quote").disabled = false;
        var errors = (response.data || {}).errors || {}, named = false;
        Object.keys(errors).forEach(function (wire) {
          var name = { pickupDatetime: "time", details: "notes" }[wire] || wire;
          if (!field(name)) return;
          named = true;
          showError(name, name === "email" ? T.emailInvalid : name === "phone" ? T.phoneInvalid
            : name === "time" ? (Date.parse(pickup()) > Date.now() ? T.pickupTooFar : T.pickupAhead) : name === "notes" ? T.notesTooLong : T.required[name] || errors[wire][0]);
        });
        formError(named ? T.quoteFields : trouble(response));
      }).catch(function () { el("ask-quote").disabled = false; formError(T.offline); });
    }
    // What the form says beyond the request's own members, in the traveller's words, for staff to read.
    function tripInWords() {
      function chose(name) { // "Passengers: 8+", as the field's label and its option read
        var select = field(name);
        return root.querySelector("label[for=cb-" + name + "]").textContent + ": " +
          select.options[select.selectedIndex].textContent;
      }
      var lines = [value("notes")];
      if (kind() === "hourly") lines.push(chose("hours"));
      if (kind() === "tour") lines.push(chose("tour"));
      ["passengers", "luggage"].forEach(function (name) {
        if (/\+$/.test(field(name).options[field(name).selectedIndex].textContent)) lines.push(chose(name));
      });
      var on = stops().map(function (stop) { return stop.wait ? fill(T.stopWaiting, { stop: stop.address, minutes: stop.wait }) : stop.address; });
      if (on.length) lines.push(T.stopsHeading + ": " + on.join("; "));
      if (extraLabels().length) lines.push(fill(T.quoteExtras, { extras: extraLabels().join(", ") }));
      if (!el("flight-field").hidden && value("flight")) lines.push(fill(T.quoteFlight, { flight: value("flight") }));
      if (returning()) lines.push(backPickup() ? fill(T.wayBackOn, { when: when(backPickup()) }) : T.wayBack);
      return lines.filter(Boolean);
    }
    function quoteAsked(reference) {
      form.querySelectorAll("input, textarea, select, button").forEach(function (input) { input.disabled = true; });
      var box = el("quote-asked");
      box.textContent = fill(T.quoteAsked, { reference: reference, email: value("email") });
      box.hidden = false;
      box.setAttribute("tabindex", "-1");
      box.focus();
      try { localStorage.removeItem(STORE); } catch (e) { /* private mode */ }
    }

    function checkEmail() {
      form.querySelectorAll("input, textarea, select, button").forEach(function (input) { input.disabled = true; });
      var box = el("check-email");
      box.textContent = fill(T.checkEmail, { email: value("email") });
      box.hidden = false;
      box.setAttribute("tabindex", "-1");
      box.focus();
    }

    function refused(response) {
      var problem = response.data || {}, errors = problem.errors || {}, named = false;
      if (problem.code === "lead_time") {
        if (errors["bookingData.wayBack"]) { // the way back's own pickup, as the server names it
          showError("back-date", fill(T.tooFar, { days: config.maxDaysAhead }));
          return formError(T.checkFields);
        }
        return tooEarly(problem.earliestPickup);
      }
      if (problem.code === "amount_mismatch") {
        answers.quotes = {}; state.routeKey = ""; state.back.key = ""; // the tariff changed: what the page kept is stale
        return updatePrices().then(function () {
          var cents = tripCents(vehicle());
          formError(cents !== null ? fill(T.priceChanged, { price: euro.format(cents / 100) }) : T.failed);
        });
      }
      if (problem.code === "route_not_found") return showError("to", T.noRoute);
      if (problem.code === "hire_too_short") {
        var hours = decimal.format(problem.minimumHours);
        return errors["bookingData.stops"] ? showError("stops", fill(T.waitsTooLong, { hours: hours }))
                                           : showError("hours", fill(T.hireTooShort, { hours: hours }));
      }
      if (problem.code === "unknown_tour") return showError("tour", T.notForTour);
      if (problem.code === "vehicle_too_small") { showError("vehicle", T.notFit); return formError(T.checkFields); }
      if (problem.code === "unknown_extra" || problem.code === "too_many_extras") {
        showError("extras", T.extrasRefused); return formError(T.checkFields);
      }
      if (problem.code === "too_many_stops") { showError("stops", T.tooManyStops); return formError(T.checkFields); }
      if (problem.code === "invalid_phone") { showError("phone", T.phoneInvalid); return formError(T.checkFields); }
      if (problem.code === "text_messages_unavailable") { showError("sms", T.smsUnavailable); return formError(T.checkFields); }
      if (problem.code === "payment_provider_unavailable") return formError(T.paymentDown);
      Object.keys(errors).forEach(function (wire) {
        var name = WIRE[wire] || (wire.indexOf("bookingData.stops.") === 0 ? "stops" : "");
        if (!name) return;
        named = true;
        showError(name, problem.code === "outside_tour_area" ? T.outsideTourArea
          : wire === "bookingData.wayBack" ? wayBackRefusal(errors[wire][0])
          : name === "stops" ? T.stopInvalid
          : name === "email" ? T.emailInvalid : name === "vatid" ? T.vatIdInvalid
          : T.required[name] || errors[wire][0]);
      });
      formError(named ? T.checkFields : trouble(response));
    }

    // The server's refusal of the way back as a whole: picked up before the way out arrives (its message
    // names the arrival, ISO), or another the page cannot word more closely.
    function wayBackRefusal(message) {
      var arrives = /\d{4}-\d\d-\d\dT\d\d:\d\d/.exec(message || "");
      return arrives ? fill(T.wayBackTooEarly, { arrival: when(arrives[0]) }) : T.wayBackRefused;
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      formError("");
      settled().then(submit);
    });

    function submit() {
      var check = validate();
      if (check.message) { formError(check.message); if (check.fields.length) field(check.fields[0]).focus(); return; }
      var body = booking(), text = JSON.stringify(body);
      if (!state.attempt || state.attempt.text !== text) state.attempt = { text: text, key: newToken() };
      payButton.setAttribute("aria-busy", "true");
      payButton.disabled = true;
      formError("");
      status(onAccount() ? T.sending : T.paying);
      call("/api/page/checkout", null, body, { "Idempotency-Key": state.attempt.key }).then(function (response) {
        if (response.status === 201 && response.data.url) { window.location.assign(response.data.url); return; }
        if (response.status === 202) { status(""); payButton.removeAttribute("aria-busy"); checkEmail(); return; }
        status("");
        payButton.disabled = false;
        payButton.removeAttribute("aria-busy");
        return refused(response);
      }).catch(function () {
        status(""); payButton.disabled = false; payButton.removeAttribute("aria-busy"); formError(T.offline);
      });
    }

    form.addEventListener("input", function (event) {
      if (event.target.name && event.target.getAttribute("aria-invalid") === "true") showError(event.target.name, "");
      changed();
      if (event.target.name === "billing") billingHint();
    });
    form.addEventListener("change", function (event) {
      var name = event.target.name;
      changed();
      billingHint();
      if (name === "kind") {
        showKind(); showError("to", "");
        showRoute(); updatePrices(); // a quote asked before comes from the page's own answers
      }
      if (name === "hours" || name === "tour") { showError(name, ""); showKind(); updatePrices(); }
      if (name === "passengers" || name === "luggage" || /^extra-|^wait-/.test(name)) {
        showError("extras", ""); showError("vehicle", ""); updatePrices();
      }
      if (name === "vehicle" || name === "payment") { showError("vehicle", ""); renderPrices(); }
      if (name === "date" || name === "time") {
        showError("date", ""); showError("time", "");
        field("back-date").min = value("date") || config.earliest.slice(0, 10);
        checkPickup(); updateRoute(300);
      }
      if (name === "return") { showReturn(); updatePrices(); }
      if (name === "back-date" || name === "back-time") {
        showError("back-date", ""); showError("back-time", ""); state.back.early = false;
        checkBackPickup(); wayBackOrder(); updateRoute(300);
      }
    });

    autocomplete("from");
    autocomplete("to");
    slots.forEach(function (n) { autocomplete("stop-" + n); });
    if (el("add-stop")) el("add-stop").addEventListener("click", addStop);
    Array.prototype.forEach.call(root.querySelectorAll("[data-remove-stop]"), function (button) {
      button.addEventListener("click", function () { removeStop(+button.getAttribute("data-remove-stop")); });
    });
    field("date").min = config.earliest.slice(0, 10);
    restore();
    showKind();
    updateRoute(0);
    if (pickup()) checkPickup();
    checkBackPickup();
  }

  window.ChauffeurBooking = { mount: mount };
  if (document.getElementById("cb-config")) mount(document, {}); // this service's own booking page
})();

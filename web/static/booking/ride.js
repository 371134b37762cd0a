/* "Manage my booking": the ride panel follows the chauffeur's moves by itself. Every `data-refresh-seconds`
   (while the tab is shown, and at once when it is shown again) it asks the server for the panel alone, an
   HTML fragment in the page's language, and puts each part in place by its id: the sentence in #ride-now
   (a live region, so a screen reader says the news), the chauffeur's shared position and arrival time in
   #ride-position (asked every 10 s while they are on the way, as the fragment's data-refresh-seconds
   says), the timeline in #ride-details and the booking's state in #status (confirmed, then completed).
   It stops when the ride is over (the fragment is marked data-ride-final) or the server stops answering
   with the panel. Without JavaScript a reload shows the same. */
(function () {
  "use strict";

  var panel = document.getElementById("ride");
  if (!panel || !panel.dataset.refresh) return;
  var every = Math.max(5, Number(panel.dataset.refreshSeconds) || 30) * 1000;
  var timer = null, stopped = false;

  function later() {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(refresh, every);
  }

  function apply(html) {
    var fresh = document.createElement("template");
    fresh.innerHTML = html;
    ["ride-now", "ride-position", "ride-details", "status"].forEach(function (id) {
      var mine = document.getElementById(id), theirs = fresh.content.getElementById(id);
      if (!mine || !theirs) return;
      if (mine.innerHTML !== theirs.innerHTML) mine.innerHTML = theirs.innerHTML; // unchanged: nothing said
      if (mine.className !== theirs.className) mine.className = theirs.className;
      if (theirs.hasAttribute("data-ride-final")) mine.setAttribute("data-ride-final", "");
    });
    if (fresh.content.querySelector("[data-ride-final]")) stopped = true;
    var pace = fresh.content.querySelector("[data-refresh-seconds]"); // sooner while the chauffeur comes
    if (pace) every = Math.max(5, Number(pace.dataset.refreshSeconds) || 30) * 1000;
  }

  function refresh() {
    if (document.hidden) return; // asked again when the tab is shown
    fetch(panel.dataset.refresh, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) { stopped = true; return null; }
        return response.text();
      })
      .then(function (html) { if (html !== null) apply(html); })
      .catch(function () { /* offline for a moment: the next turn asks again */ })
      .then(later);
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden && !stopped) refresh();
  });
  later();
})();

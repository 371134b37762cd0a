/* The booking form on the operator's own website, from one tag:
     <script src="https://BOOKING-SERVICE/static/booking/embed.js" data-lang="de" async></script>
   It puts the form where the tag stands (or into the element `data-target` names), inside a shadow root so
   neither site's styles leak into the other, and the form calls this service's API across origins (the
   website's origin must be in CORS_ALLOWED_ORIGINS). Paying opens the hosted payment page in the tab. */
(function () {
  "use strict";
  var tag = document.currentScript;
  var base = new URL(tag.src).origin;
  var lang = tag.getAttribute("data-lang") || (document.documentElement.lang || navigator.language || "en").slice(0, 2);
  var host = document.createElement("div");
  var target = tag.getAttribute("data-target") && document.querySelector(tag.getAttribute("data-target"));
  host.className = "chauffeur-booking";
  if (target) target.appendChild(host); else tag.parentNode.insertBefore(host, tag);
  var root = host.attachShadow({ mode: "open" });

  fetch(base + "/embed/form?lang=" + encodeURIComponent(lang)).then(function (response) {
    if (!response.ok) throw new Error("The booking form answered " + response.status);
    return response.text();
  }).then(function (html) {
    root.innerHTML = html; // the service's own markup; its <script type="application/json"> is data only
    function start() { window.ChauffeurBooking.mount(root, { api: base }); }
    if (window.ChauffeurBooking) return start();
    var script = document.createElement("script");
    script.src = root.querySelector("[data-cb-script]").getAttribute("data-cb-script");
    script.onload = start;
    document.head.appendChild(script);
  }).catch(function (error) {
    host.textContent = "The booking form could not be loaded. ";
    var link = document.createElement("a");
    link.href = base + "/";
    link.textContent = "Book on " + new URL(base).host;
    host.appendChild(link);
    if (window.console) console.error(error);
  });
})();

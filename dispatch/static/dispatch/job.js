// The chauffeur's job page: a move's button stops taking taps once pressed, so a shaky double tap sends
// one move (a second would be refused anyway, but would show a refusal for nothing).
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form.classList.contains("jp-move")) {
    for (const button of document.querySelectorAll(".jp-move button")) {
      button.disabled = true;
    }
  }
});
// Back to a page the browser kept: its buttons work again.
window.addEventListener("pageshow", () => {
  for (const button of document.querySelectorAll(".jp-move button")) {
    button.disabled = false;
  }
});

// Sharing the phone's position with the traveller, once the chauffeur turned it on (the section carries the
// address and the texts): the latest fix is sent every `data-every-seconds` while the page is open, with the
// CSRF token of the switch's form. The server ends it (the ride moved on, sharing turned off elsewhere or
// ended by its time): the page stops sending and says why.
(() => {
  const sharing = document.getElementById("position-sharing");
  if (!sharing || !sharing.dataset.positionUrl) return;
  const status = document.getElementById("position-status");
  if (!("geolocation" in navigator)) {
    status.textContent = sharing.dataset.unavailable;
    return;
  }
  const every = Math.max(5, Number(sharing.dataset.everySeconds) || 10) * 1000;
  const token = sharing.querySelector("input[name=csrfmiddlewaretoken]").value;
  let latest = null, sent = null, sentAt = 0, watch = null, timer = null;
  const posting = new AbortController();

  function stop(words) {
    navigator.geolocation.clearWatch(watch);
    clearInterval(timer);
    status.textContent = words;
  }

  // A move tapped ("arrived", "on board") ends this page: a position still on its way would be refused
  // once the move lands, for nothing.
  document.addEventListener("submit", (event) => {
    if (event.target.classList.contains("jp-move")) {
      posting.abort();
      stop(status.textContent);
    }
  });

  function send() {
    if (!latest || latest === sent) return;
    const fix = latest;
    sent = fix;
    sentAt = Date.now();
    fetch(sharing.dataset.positionUrl, {
      method: "POST",
      credentials: "same-origin",
      signal: posting.signal,
      headers: { "Content-Type": "application/json", "X-CSRFToken": token },
      body: JSON.stringify({
        latitude: fix.coords.latitude,
        longitude: fix.coords.longitude,
        accuracy: fix.coords.accuracy,
        measuredAt: fix.timestamp,
      }),
    })
      .then((response) => {
        if (response.ok) {
          // {"stored": false}: a reading ignored (too unsure, too soon); sharing goes on with the next
          return response.json().catch(() => ({})).then((answer) => {
            if (!answer.stored) return;
            const time = new Date(fix.timestamp).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
            status.textContent = `${sharing.dataset.sent} ${time}`;
          });
        } else if (response.status >= 500 || response.status === 429) {
          sent = null; // the server's trouble: sent again on the next turn
        } else { // refused for good: the ride moved on, sharing was turned off, the link no longer opens
          return response.json().catch(() => ({})).then((answer) => stop(answer.detail || sharing.dataset.unavailable));
        }
      })
      .catch(() => { sent = null; }); // offline for a moment: sent again on the next turn
  }

  watch = navigator.geolocation.watchPosition(
    (fix) => {
      latest = fix;
      if (Date.now() - sentAt >= every) send();
    },
    (error) => {
      status.textContent = error.code === error.PERMISSION_DENIED
        ? sharing.dataset.denied : sharing.dataset.unavailable;
    },
    { enableHighAccuracy: true, maximumAge: every, timeout: 60000 },
  );
  timer = setInterval(send, every);
})();

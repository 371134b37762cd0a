// The dispatch board refreshes itself: while the tab is shown it fetches the board's live part (counts,
// lanes, no-shows and waits, for the same range and search) every few seconds and swaps it in place,
// keeping the scroll position and the focus. A static file: the Content-Security-Policy allows no inline
// script.
(() => {
  "use strict";
  const live = document.getElementById("live");
  if (!live || !live.dataset.url) return;
  const problem = document.getElementById("refresh-problem");
  const every = Math.max(5, Number(live.dataset.seconds) || 20) * 1000;
  let timer = null;
  let busy = false;

  function schedule() {
    clearTimeout(timer);
    // A hidden tab asks nothing: it refreshes as soon as it is shown again.
    timer = document.hidden ? null : setTimeout(refresh, every);
  }

  function swap(html) {
    const x = window.scrollX;
    const y = window.scrollY;
    const focused = live.contains(document.activeElement) ? document.activeElement.id : "";
    // Parsed as an inert document: nothing in it runs.
    const fresh = new DOMParser().parseFromString(html, "text/html");
    live.replaceChildren(...fresh.body.childNodes);
    window.scrollTo(x, y);
    const again = focused && document.getElementById(focused);
    if (again) again.focus({ preventScroll: true });
  }

  function failed(yes) {
    if (!problem) return;
    problem.textContent = yes ? problem.dataset.failed : "";
  }

  async function refresh() {
    if (busy) return;
    busy = true;
    try {
      const response = await fetch(live.dataset.url, {
        credentials: "same-origin",
        cache: "no-store",
        headers: { Accept: "text/html" },
      });
      // Signed out (the sign-in page after a redirect) or refused: keep the board shown and say so.
      if (!response.ok || response.redirected) {
        failed(true);
      } else {
        swap(await response.text());
        failed(false);
      }
    } catch (_offline) {
      failed(true);
    } finally {
      busy = false;
      schedule();
    }
  }

  document.addEventListener("visibilitychange", () => {
    if (document.hidden) {
      clearTimeout(timer);
      timer = null;
    } else {
      refresh();
    }
  });
  schedule();
})();

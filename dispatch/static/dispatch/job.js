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

// "Manage my booking": the cancel asks once more before it is sent (no inline handlers: the CSP forbids them).
"use strict";
document.querySelectorAll("form[data-confirm]").forEach((form) => {
  form.addEventListener("submit", (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
});

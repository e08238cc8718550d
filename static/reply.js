// The page a night-ahead mail's Coming / Not coming link opens: its script saves the answer the
// link asked for at once, with the same POST its button makes (a mail scanner that only fetches
// the link runs no script and saves nothing). With scripts off, the button is there.
(function () {
  "use strict";
  const form = document.querySelector("form#reply[data-autosave]");
  if (!form) return;
  const button = form.querySelector("button[name=answer][value='" + form.dataset.autosave + "']");
  if (!button) return;
  button.disabled = true;
  button.textContent = "Saving: " + button.textContent.replace(/^Save: /, "") + "…";
  // Sent as the form would be (the answer and the page's token); the page then shows what was
  // saved, with the other answers to change it.
  const hidden = document.createElement("input");
  hidden.type = "hidden";
  hidden.name = "answer";
  hidden.value = form.dataset.autosave;
  form.appendChild(hidden);
  HTMLFormElement.prototype.submit.call(form);
})();

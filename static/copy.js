// "Copy" buttons: a button with data-copy="<id>" copies that field's value and says so.
"use strict";

document.querySelectorAll("button[data-copy]").forEach((b) => {
  const field = document.getElementById(b.dataset.copy);
  if (!field) return;
  b.hidden = false;
  const said = b.parentElement.querySelector(".copied");
  b.addEventListener("click", async () => {
    let ok = false;
    try {
      await navigator.clipboard.writeText(field.value || field.textContent);
      ok = true;
    } catch (_) {
      // No clipboard (an http page, say): select the text for a long-press copy.
      field.select && field.select();
    }
    if (said) said.textContent = ok ? "Copied." : "Selected: copy it with your device's menu.";
  });
});
